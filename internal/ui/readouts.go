package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
)

// readoutValueW is the cells a readout's value gets in its cell.
const readoutValueW = 10

// readoutGrid is the scenario's readouts in cells of one width, in rows:
// each label starts its cell, so none moves as values change.
type readoutGrid struct {
	lines []string
}

// newReadouts lays s's readouts out for width w. The cell width comes from
// the labels (the scenario's own, fixed while it runs), not the values.
func newReadouts(s session.Snapshot, w int) readoutGrid {
	lw := 0
	for _, r := range s.Readouts {
		lw = max(lw, cellWidth(r.Label))
	}
	cellW := min(lw+1+readoutValueW, w)
	cols := max((w+colGap)/(cellW+colGap), 1)
	var g readoutGrid
	gap := strings.Repeat(" ", colGap)
	var row []string
	for i, r := range s.Readouts {
		v := cut(readoutValue(r), readoutValueW)
		row = append(row, fit(fit(r.Label, lw)+" "+theme.Bold.Render(v), cellW))
		if len(row) == cols || i == len(s.Readouts)-1 {
			g.lines = append(g.lines, strings.TrimRight(strings.Join(row, gap), " "))
			row = nil
		}
	}
	return g
}

// panel is the readouts under a title naming the scenario and its load,
// in exactly n+1 lines; readouts that do not fit end the last line with
// " …".
func (g readoutGrid) panel(s session.Snapshot, w, n int) []string {
	extra := ""
	if s.Load != "" {
		extra = "load: " + s.Load + "  " + theme.Faint.Render("[ ] to change")
	}
	name := s.Scenario
	if name == "" {
		name = "scenario"
	}
	return append([]string{cutTitle(name, extra, w)}, markCut(g.lines, n, w)...)
}

// readoutValue formats a readout: Text wins; unknown is n/a; Bool is
// true/false; a number gets its Unit (bytes in MiB, 2^20) unless the
// label already names it.
func readoutValue(r scenarios.Readout) string {
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
	case scenarios.Count:
	case scenarios.UnitPerSec, scenarios.UnitPercent:
		unit = string(r.Unit)
	case scenarios.UnitBytes:
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
// view: every count, the suggestion's rule, warnings.
func statCells(s session.Snapshot) []string {
	c := []string{
		fmt.Sprintf("pool since start: submitted %d", s.Submitted),
		fmt.Sprintf("completed %d", s.Completed),
		fmt.Sprintf("running %d", s.Running),
		fmt.Sprintf("pool queue %d", s.QueueDepth),
	}
	failed := fmt.Sprintf("failed %d", s.Failed)
	if s.Failed > 0 {
		failed = theme.Hot.Render(failed)
	}
	c = append(c, failed)
	if s.Rejected > 0 {
		c = append(c, theme.Hot.Render(fmt.Sprintf("rejected %d", s.Rejected)))
	}
	if s.Replaced > 0 {
		c = append(c, fmt.Sprintf("replaced %d", s.Replaced))
	}
	// Timed out is part of failed (see session.Snapshot); abandoned and
	// stuck are goroutines still running a timed-out task now.
	if s.TimedOut > 0 {
		c = append(c, theme.Hot.Render(fmt.Sprintf("timed out %d", s.TimedOut)))
	}
	if s.Abandoned > 0 {
		c = append(c, fmt.Sprintf("abandoned %d", s.Abandoned))
	}
	if s.Stuck > 0 {
		c = append(c, theme.Hot.Render(fmt.Sprintf("stuck %d", s.Stuck)))
	}
	c = append(c, fmtNum(float64(s.ThroughputPerSec))+" tasks/s", fmt.Sprintf("Loop queue %d", s.LoopQueued))
	// CPU now (last interval, 100% = one core) and since start, beside the
	// wall time it was spent in: the seed's "CPU time next to wall time".
	cpu := "CPU n/a"
	if s.CPUPercent >= 0 {
		cpu = "CPU " + fmtNum(float64(s.CPUPercent)) + "% now"
	}
	c = append(c, fmt.Sprintf("%s · %.2fs in %s", cpu, s.CPUSeconds, fmtSeconds(s.Elapsed.Seconds())))
	if s.RSSBytes < 0 {
		c = append(c, "RSS n/a")
	} else {
		c = append(c, fmt.Sprintf("RSS %.1f MiB", s.RSSBytes.MiB()))
	}
	c = append(c, fmt.Sprintf("goroutines %d", s.Goroutines))
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
