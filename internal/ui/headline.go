package ui

import (
	"fmt"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/report"
	"github.com/offtop/offtop/internal/session"
)

// headlineLines is the headline panel's height.
const headlineLines = 2

// headlinePanel is the one figure to watch for the scenario, now (over the
// window) and at the pick (the sizes panel's: the picked row's p99 as it
// stands, so it can grow while that size is held), and the Loop probe's p99 now and at the
// size in force, each with its unit, in fixed places:
//
//	▶ ping p99  now   8.4 ms (5s)    at the pick   3.1 ms (1 worker)
//	loop probe p99    1.2 ms  (5s, corrected)    at this size   1.1 ms
func headlinePanel(s session.Snapshot, w int) []string {
	win := "window"
	if s.Window > 0 {
		win = fmtDur(time.Duration(s.Window))
	}
	t := report.For(s.Sizes, s.Scenario, report.MinHeld)
	spec := t.Spec
	if p := report.PickFor(s, t); p.From == report.FromSearch { // the panel's one answer
		t = t.WithBest(p.Workers)
	}
	best := theme.Faint.Render("n/a (hold a size 1s)")
	if t.Best < 0 && s.Search.Uncertain != "" && s.Search.Scenario == s.Scenario {
		best = theme.Faint.Render("none (search uncertain)")
	}
	if t.Best >= 0 && t.Rows[t.Best].HeadlineP99MS != nil {
		r := t.Rows[t.Best]
		best = theme.Best.Render(fmt.Sprintf("%7s %s", report.Figure(*r.HeadlineP99MS), spec.Unit)) + " (" + report.SizeName(r.Workers) + ")"
	}
	head := theme.Title.Render("▶ "+spec.Label()) + "  now " + theme.Figure.Render(fmt.Sprintf("%7s", summaryP99(s.Headline))+" "+spec.Unit) +
		fmt.Sprintf(" %-5s", "("+win+")")
	// "at the pick" where the longest size name fits after it, else
	// "pick": chosen by the width, so it holds from frame to frame.
	widest := fmt.Sprintf("%7s %s (%s)", "", spec.Unit, report.SizeName(session.MaxWorkers))
	label := "   at the pick "
	if cellWidth(head)+len(label)+len(widest) > w {
		label = "  pick "
	}
	l1 := head + label + best
	if s.Endpoints != nil { // an attached program's own routes are its figure to watch
		l1 = endpointsLine(s, win, w)
	}

	here := "n/a"
	for _, r := range t.Rows {
		if r.Current && r.ProbeP99MS != nil {
			here = report.Figure(*r.ProbeP99MS)
		}
	}
	lv := probeLevel(s.Probe)
	l2 := "loop probe p99 " + lv.paint(fmt.Sprintf("%7s", summaryP99(s.Probe))) + " ms" +
		fmt.Sprintf(" %-16s", "("+win+", corrected)") + "  at this size " + fmt.Sprintf("%7s ms", here)
	if time.Duration(s.ProbeStalled) >= time.Second {
		// Stalls under a second show once the sample runs; this is for a
		// Loop blocked for good (a hang run inline).
		l2 += "  " + theme.Hot.Render(fmt.Sprintf("%s Loop blocked %s now", markHot, fmtSeconds(time.Duration(s.ProbeStalled).Seconds())))
	}
	return []string{cut(l1, w), cut(l2, w)}
}

// summaryP99 is s's p99 in ms, or n/a while it holds nothing.
func summaryP99(s hist.Summary) string {
	if s.Count == 0 {
		return "n/a"
	}
	return fmtMs(s.P99)
}
