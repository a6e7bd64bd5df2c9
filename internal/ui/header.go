package ui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/offtop/offtop/internal/session"
)

// header is the top line. It drops to single spaces, then to short labels,
// then is cut, as the width shrinks.
func header(s session.Snapshot, w int) string {
	type field struct{ full, mid, short string }
	scen := s.Scenario
	if scen == "" {
		scen = "-"
	}
	workers := fmt.Sprintf("workers %d", s.Workers)
	if s.Workers == 0 {
		workers = "inline (0)"
	}
	procs := fmt.Sprintf("GOMAXPROCS %d", s.GOMAXPROCS)
	procsFull, procsShort := procs, fmt.Sprintf("procs %d", s.GOMAXPROCS)
	switch s.GOMAXPROCSSource {
	case "offtop": // g, G or --gomaxprocs: say so, beside what Go would pick
		procsFull = fmt.Sprintf("%s, set here; runtime default %d", procs, s.RuntimeGOMAXPROCS)
		procs += "*"
		procsShort += "*"
	case "env":
		procsFull = procs + " (GOMAXPROCS env)"
	}
	cpus := fmt.Sprintf("NumCPU %d", s.NumCPU)
	fs := []field{
		{workers, workers, workers},
		{procsFull, procs, procsShort},
		{cpus, cpus, fmt.Sprintf("cpus %d", s.NumCPU)},
	}
	if s.CPULimit > 0 {
		l := fmtNum(float64(s.CPULimit))
		fs = append(fs, field{"cpu limit " + l, "limit " + l, "limit " + l})
	}
	sugg := fmt.Sprintf("suggested %d", s.SuggestedWorkers)
	short := fmt.Sprintf("sugg %d", s.SuggestedWorkers)
	t := "t=" + fmtSeconds(s.Elapsed.Seconds())
	fs = append(fs, field{sugg, short, short}, field{t, t, t})
	build := func(tier int, sep string) (string, int) {
		parts := []string{theme.Bold.Render("offtop"), theme.Bold.Render(scen)}
		for _, f := range fs {
			parts = append(parts, [3]string{f.full, f.mid, f.short}[tier])
		}
		if s.Oversubscribed {
			over := [3]string{"OVERSUBSCRIBED", "OVERSUB", "OVER"}[tier]
			parts = append(parts, theme.Hot.Render(markHot+" "+over))
		}
		if s.Paused {
			parts = append(parts, theme.Pause.Render("PAUSED"))
		}
		if s.PerTask {
			parts = append(parts, theme.Pause.Render([3]string{"PER-TASK", "PER-TASK", "PT"}[tier]))
		}
		line := strings.Join(parts, sep)
		return line, lipgloss.Width(line)
	}
	var line string
	for _, try := range []struct {
		tier int
		sep  string
	}{{0, "  "}, {1, "  "}, {0, " "}, {1, " "}, {2, "  "}, {2, " "}} {
		var n int
		line, n = build(try.tier, try.sep)
		if n <= w {
			return line
		}
	}
	return cut(line, w)
}
