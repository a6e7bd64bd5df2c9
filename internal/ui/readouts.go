package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/workload"
)

// readoutValueW is the fewest cells a readout's value gets in its cell;
// a cell's value gets all the width its column leaves (the grid fills the
// width there is).
const readoutValueW = 10

// readoutGrid is the scenario's readouts in a grid under a title naming
// the scenario and its load: each label starts its cell, so none moves as
// values change.
type readoutGrid struct {
	title string
	// lines are the panel's lines under the title: the load's wrapped
	// rest (load of them), then the grid's rows.
	lines []string
	load  int
}

// newReadouts lays s's readouts out for width w: the most columns whose
// values all get at least readoutValueW cells and the longest text
// readout (an address, a name) whole. Each column is as wide as its own
// longest label; the width left is shared by the values, so a wider
// screen gives every value more room. The columns come from the labels
// and the texts (the scenario's own, fixed while it runs), not the
// numbers. A value that still does not fit is cut with "…", except in a
// row's last cell, which runs on to the edge.
func newReadouts(s session.Snapshot, w int) readoutGrid {
	var g readoutGrid
	g.title, g.lines = loadTitle(s, w)
	if s.LoadClient != nil { // attach --load: the client's figures whole, under their own title
		g.title, g.lines = loadPanel(s.LoadClient, fmtDur(time.Duration(s.Window)), s.Endpoints, w)
	}
	g.load = len(g.lines)
	rs := s.Readouts
	if len(rs) == 0 {
		return g
	}
	need := readoutValueW
	for _, r := range rs {
		if r.Str {
			need = max(need, min(cellWidth(r.Text), w/2))
		}
	}
	cols, labels, vw := 1, []int{0}, 0
	for c := min(len(rs), 8); c >= 1; c-- {
		lw := make([]int, c)
		for i, r := range rs {
			lw[i%c] = max(lw[i%c], cellWidth(r.Label))
		}
		sum := colGap * (c - 1)
		for _, l := range lw {
			sum += l + 1
		}
		v := (w - sum) / c
		if v >= need || c == 1 {
			cols, labels, vw = c, lw, max(v, 1)
			break
		}
	}
	gap := strings.Repeat(" ", colGap)
	var row []string
	for i, r := range rs {
		c := i % cols
		v := theme.Bold.Render(readoutValue(r))
		last := c == cols-1 || i == len(rs)-1
		if !last {
			v = fit(v, vw) // cut or padded outside the style, so a row's end trims
		}
		row = append(row, fit(r.Label, labels[c])+" "+v)
		if last {
			g.lines = append(g.lines, cut(strings.TrimRight(strings.Join(row, gap), " "), w))
			row = nil
		}
	}
	return g
}

// loadTitle is the readouts' title, the scenario and its load, and the
// load's rest wrapped under it where the title cannot hold it all. The
// hint "[ ] to change" comes only where it fits (the footer has "[/]
// load") and the load takes [ and ].
func loadTitle(s session.Snapshot, w int) (string, []string) {
	name := s.Scenario
	if name == "" {
		name = "scenario"
	}
	if s.Load == "" {
		return title(name, "", w), nil
	}
	load := "load: " + s.Load
	room := w - cellWidth(name) - 3 // "name  extra " and a rule's cell
	switch {
	case s.Takes(session.Load) && cellWidth(load)+2+len("[ ] to change") <= room:
		return title(name, load+"  "+theme.Faint.Render("[ ] to change"), w), nil
	case cellWidth(load) <= room:
		return title(name, load, w), nil
	case room < 16:
		return cutTitle(name, load, w), nil
	}
	words := strings.Fields(load)
	head := ""
	for len(words) > 0 && cellWidth(strings.TrimSpace(head+" "+words[0])) <= room {
		head = strings.TrimSpace(head + " " + words[0])
		words = words[1:]
	}
	var rest []string
	for _, l := range wordwrap(strings.Join(words, " "), w-2) {
		rest = append(rest, "  "+l)
	}
	return title(name, head, w), rest
}

// panel is the readouts' title and exactly n lines under it: the load's
// rest first, then the grid; readouts that do not fit end the last line
// with " …".
func (g readoutGrid) panel(w, n int) []string {
	return append([]string{g.title}, markCut(g.lines, n, w)...)
}

// readoutValue formats a readout: Text wins; unknown is n/a; Bool is
// true/false; a number gets its Unit (bytes in MiB, 2^20) unless the
// label already names it.
func readoutValue(r workload.Readout) string {
	switch {
	case r.Text != "":
		return r.Text
	case !r.Known:
		return "n/a"
	case r.Bool:
		if r.Value != 0 {
			return "true"
		}
		return "false"
	}
	v := r.Value
	unit := ""
	switch r.Unit {
	case workload.Count:
	case workload.UnitPerSec, workload.UnitPercent:
		unit = string(r.Unit)
	case workload.UnitBytes:
		v, unit = v/(1<<20), " MiB"
	default:
		unit = " " + string(r.Unit)
	}
	if u := strings.TrimSpace(unit); u != "" && strings.Contains(r.Label, u) {
		unit = ""
	}
	return fmtNum(v) + unit
}

// markCut keeps the first n of lines and, when some are left out, ends
// the last one kept with " …".
func markCut(lines []string, n, w int) []string {
	if n <= 0 || n >= len(lines) {
		return lines
	}
	lines = slices.Clone(lines[:n])
	lines[n-1] = fit(lines[n-1], max(w-2, 0)) + " …"
	return lines
}

// statCells are the pool and process figures in words, for the detail
// view: every count, the suggestion's rule, warnings. Each figure is
// right-aligned in a fixed width (counts statCountW digits) so the labels
// after it hold still from frame to frame.
func statCells(s session.Snapshot) []string {
	n := func(label string, v int64) string { return fmt.Sprintf("%s %*d", label, statCountW, v) }
	hot := func(c string, v int64) string {
		if v > 0 {
			return theme.Hot.Render(c)
		}
		return c
	}
	c := []string{
		n("pool since start: submitted", s.Submitted),
		n("completed", s.Completed),
		fmt.Sprintf("running %4d", s.Running),
		n("pool queue", s.QueueDepth),
		hot(n("failed", s.Failed), s.Failed),
	}
	if s.ScenarioStart != (session.PoolCounts{}) { // a tab came: this scenario's own beside them
		h := s.SinceScenario()
		c = append(c, n("this scenario: submitted", h.Submitted), n("completed", h.Completed), hot(n("failed", h.Failed), h.Failed))
		if h.TimedOut > 0 {
			c = append(c, hot(n("timed out", h.TimedOut), h.TimedOut))
		}
	}
	if s.Rejected > 0 {
		c = append(c, hot(n("rejected", s.Rejected), s.Rejected))
	}
	if s.Replaced > 0 {
		c = append(c, n("replaced", s.Replaced))
	}
	// Timed out is part of failed (see session.Snapshot); abandoned and
	// stuck are goroutines still running a timed-out task now.
	if s.TimedOut > 0 {
		c = append(c, hot(n("timed out", s.TimedOut), s.TimedOut))
	}
	if s.Abandoned > 0 {
		c = append(c, n("abandoned", s.Abandoned))
	}
	if s.Stuck > 0 {
		c = append(c, hot(n("stuck", s.Stuck), s.Stuck))
	}
	_, win := windowLabel(s)
	c = append(c, fmt.Sprintf("%6s tasks/s (%s)", fmtNum(float64(s.ThroughputPerSec)), win), n("Loop queue", int64(s.LoopQueued)))
	// CPU now (last interval, 100% = one core) and since start, beside the
	// wall time it was spent in: the seed's "CPU time next to wall time".
	cpu := "CPU  n/a"
	if s.CPUPercent >= 0 {
		cpu = fmt.Sprintf("CPU %4s%% now", fmtNum(float64(s.CPUPercent)))
	}
	cpuTime := fmt.Sprintf("%8.2fs", s.CPUSeconds)
	if !(s.CPUSeconds >= 0) { // NaN: unknown
		cpuTime = "     n/a "
	}
	c = append(c, fmt.Sprintf("%s · %s in %7s", cpu, cpuTime, fmtSeconds(s.Elapsed.Seconds())))
	if s.RSSBytes < 0 {
		c = append(c, "RSS      n/a")
	} else {
		c = append(c, fmt.Sprintf("RSS %8.1f MiB", s.RSSBytes.MiB()))
	}
	c = append(c, n(threadsLabel(s), int64(s.Goroutines)))
	if s.SuggestedRule != "" {
		rule := s.SuggestedRule
		if s.CPULimit > 0 && s.RuntimeGOMAXPROCS > int(s.CPULimit) {
			rule += fmt.Sprintf(" (Go rounds it up: GOMAXPROCS %d)", s.RuntimeGOMAXPROCS)
		}
		c = append(c, rule)
	}
	if s.CPUWarning != "" {
		c = append(c, theme.Warm.Render(markWarm+" "+s.CPUWarning))
	}
	return c
}

// statCountW is the digits a count gets in statCells: 10 million tasks
// before a label moves.
const statCountW = 8

// flow lays cells left to right, colGap apart, wrapping to new lines; a
// cell wider than w is cut.
func flow(cells []string, w int) []string {
	var out []string
	line, lw := "", 0
	sep := strings.Repeat(" ", colGap)
	for _, c := range cells {
		c = cut(c, w)
		cw := cellWidth(c)
		if lw > 0 && lw+colGap+cw > w {
			out = append(out, line)
			line, lw = "", 0
		}
		if lw > 0 {
			line += sep
			lw += colGap
		}
		line += c
		lw += cw
	}
	if lw > 0 {
		out = append(out, line)
	}
	return out
}
