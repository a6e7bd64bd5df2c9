package ui

import (
	"fmt"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/session"
)

// detailBody is the d view: the headline, the full latency table (raw,
// corrected, since reset, sched probe, runtime, task), the pool and
// process figures in words and every readout, in avail lines.
func detailBody(s session.Snapshot, w, avail int) []string {
	out := headlinePanel(s, w)
	out = append(out, title("latency detail", "", w))
	out = append(out, latencyTable(s, w, latRows+1)...)
	out = append(out, title("pool and process", "", w))
	out = append(out, flow(statCells(s), w)...)
	rd := newReadouts(s, w)
	out = append(out, rd.panel(s, w, len(rd.lines))...)
	return markCut(out, avail, w)
}

// Latency table geometry.
const (
	latCellW  = 7 // a percentile column: 6 for the number, 1 for a mark
	latCountW = 8
	latRows   = 6 // rows of the full table (its header aside)
)

type latRow struct {
	long, short string
	sum         hist.Summary
	probe       bool // p99 gets the probe thresholds
	prio        int  // lower is kept first when rows are short
}

// windowLabel is "5s window" from Snapshot.Window.
func windowLabel(s session.Snapshot) (long, short string) {
	if s.Window <= 0 {
		return "window", "win"
	}
	d := fmtDur(time.Duration(s.Window))
	return d + " window", d
}

// latencyTable is a header and up to six rows of percentiles in ms. With
// fewer than seven lines it keeps the most telling rows.
func latencyTable(s session.Snapshot, w, n int) []string {
	win, winShort := windowLabel(s)
	rows := []latRow{
		{"loop probe, corrected, " + win, "probe " + winShort, s.Probe, true, 0},
		{"loop probe, raw, " + win, "probe raw " + winShort, s.ProbeRaw, true, 4},
		{"loop probe, corrected, since reset", "probe since reset", s.ProbeTotal, true, 2},
		{"sched probe (free goroutine)", "sched probe", s.Sched, true, 3},
		{"runtime /sched/latencies, last " + fmtDur(time.Duration(s.Interval)), "runtime sched", s.SchedRuntime, false, 5},
		{"task wait+run, " + win, "task " + winShort, s.Task, false, 1},
	}
	keep := n - 1
	if keep < 1 {
		return nil
	}
	if keep < len(rows) {
		var kept []latRow
		for _, r := range rows {
			if r.prio < keep {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	numW := 5*latCellW + latCountW
	lw := 0
	for _, r := range rows {
		lw = max(lw, lipgloss.Width(r.long))
	}
	short := lw+1+numW > w
	if short {
		lw = 0
		for _, r := range rows {
			lw = max(lw, lipgloss.Width(r.short))
		}
	}
	lw = max(lw, len("latency ms"))
	lw = min(lw, max(w-numW-1, 1))
	head := fit("latency ms", lw) + " "
	for _, h := range []string{"p50", "p90", "p99", "p99.9", "max"} {
		head += fmt.Sprintf("%6s ", h)
	}
	head += fmt.Sprintf("%*s", latCountW, "n")
	out := []string{theme.Bold.Render(head)}
	for _, r := range rows {
		label := r.long
		if short {
			label = r.short
		}
		line := fit(label, lw) + " "
		cells := summaryCells(r.sum)
		for i, c := range cells {
			cell := fmt.Sprintf("%6s", c)
			mark := " "
			if i == 2 && r.probe {
				lv := probeLevel(r.sum)
				if lv > 0 {
					cell = lv.style().Render(cell)
				}
				mark = lv.styledMark()
			}
			line += cell + mark
		}
		line += fmt.Sprintf("%*s", latCountW, fmtCount(r.sum.Count))
		out = append(out, line)
	}
	return out
}
