package ui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/workload"
)

// othersShown is the share of the CPUs others must take for the header to
// say so: below it the machine is as quiet as a shared one gets.
const othersShown = 0.1

// othersOf is the CPUs the others reading covers.
func othersOf(s session.Snapshot) int {
	if s.OthersOf > 0 {
		return s.OthersOf
	}
	return s.NumCPU
}

// nodeRuntime says the program is a Node.js one (its agent reports
// gomaxprocs_source "node"): the figures Go names GOMAXPROCS and
// goroutines are then os.availableParallelism() and its JS threads.
func nodeRuntime(s session.Snapshot) bool { return s.GOMAXPROCSSource == "node" }

// threadsLabel is what s's Goroutines counts: "goroutines", or a Node
// program's "JS threads" (the same width).
func threadsLabel(s session.Snapshot) string {
	if nodeRuntime(s) {
		return "JS threads"
	}
	return "goroutines"
}

// readout is s's readout under key.
func readout(s session.Snapshot, key string) (workload.Readout, bool) {
	for _, r := range s.Readouts {
		if r.Key == key {
			return r, true
		}
	}
	return workload.Readout{}, false
}

// header is the top line. As the width shrinks it drops to single
// spaces, then to shorter names (GOMAXPROCS without its source, then
// "procs" and "cpus"), and only then abbreviates the words a reader acts
// on ("others 1.6/2", "OVER"), then is cut. The others field (CPU the rest
// of the machine takes) shows above othersShown of the CPUs, warm, and hot
// when the machine is busy (session.Machine.MachineBusy). The form is chosen for the longest
// elapsed time it will show (t=9999.9s), so it does not change as t grows.
func header(s session.Snapshot, w int) string {
	type field struct{ forms [4]string } // full, mid, compact, short
	scen := s.Scenario
	if scen == "" {
		scen = "-"
	}
	workers := fmt.Sprintf("workers %d", s.Workers)
	if s.Workers == 0 {
		workers = "inline (0)"
	}
	procs := fmt.Sprintf("GOMAXPROCS %d", s.GOMAXPROCS)
	if nodeRuntime(s) {
		procs = fmt.Sprintf("parallelism %d", s.GOMAXPROCS)
	}
	procsFull, procsShort := procs, fmt.Sprintf("procs %d", s.GOMAXPROCS)
	switch s.GOMAXPROCSSource {
	case "offtop": // g, G or --gomaxprocs: say so, beside what Go would pick
		procsFull = fmt.Sprintf("%s* (runtime default %d)", procs, s.RuntimeGOMAXPROCS)
		procs += "*"
		procsShort += "*"
	case "env":
		procsFull = procs + " (GOMAXPROCS env)"
	case "node": // os.availableParallelism(), and libuv's threads beside it
		if r, ok := readout(s, "libuv_threads"); ok && r.Known {
			procsFull = fmt.Sprintf("%s, libuv pool %d", procs, int(r.Value))
		}
	}
	cpus := fmt.Sprintf("NumCPU %d", s.NumCPU)
	cpusShort := fmt.Sprintf("cpus %d", s.NumCPU)
	fs := []field{
		{[4]string{workers, workers, workers, workers}},
		{[4]string{procsFull, procs, procsShort, procsShort}},
		{[4]string{cpus, cpus, cpusShort, cpusShort}},
	}
	if s.CPULimit > 0 {
		l := fmtNum(float64(s.CPULimit))
		fs = append(fs, field{[4]string{"cpu limit " + l, "limit " + l, "limit " + l, "limit " + l}})
	}
	if f, ok := processField(s); ok {
		fs = append([]field{f}, fs...)
	}
	// The CPU rule's size is where a run starts, not an answer: the
	// sizes panel's pick is the one answer.
	start := fmt.Sprintf("start %d", s.SuggestedWorkers)
	fs = append(fs, field{[4]string{start + " (CPU rule)", start, start, start}})
	if of := othersOf(s); s.OthersCPUs >= 0 && of > 0 && float64(s.OthersCPUs) > othersShown*float64(of) {
		v := fmt.Sprintf("%.1f", float64(s.OthersCPUs))
		style, mark := theme.Warm, ""
		if s.MachineBusy {
			style, mark = theme.Hot, markHot+" "
		}
		long := style.Render(fmt.Sprintf("%sothers %s of %d CPUs", mark, v, of))
		short := style.Render(fmt.Sprintf("%sothers %s/%d", mark, v, of))
		fs = append(fs, field{[4]string{long, long, short, short}})
	}
	build := func(tier int, sep, t string) string {
		parts := []string{theme.Bold.Render("offtop"), theme.Bold.Render(scen)}
		for _, f := range fs {
			if f.forms[tier] != "" { // a field this tier leaves out
				parts = append(parts, f.forms[tier])
			}
		}
		parts = append(parts, t)
		if s.Oversubscribed {
			over := [4]string{"OVERSUBSCRIBED", "OVERSUBSCRIBED", "OVERSUBSCRIBED", "OVER"}[tier]
			parts = append(parts, theme.Hot.Render(markHot+" "+over))
		}
		if s.Paused && s.Remote != "" { // attached: the program's pool has no task
			parts = append(parts, theme.Pause.Render([4]string{"IDLE (rows not counting)", "IDLE", "IDLE", "IDLE"}[tier]))
		} else if s.Paused {
			parts = append(parts, theme.Pause.Render("PAUSED"))
		}
		if s.PerTask {
			parts = append(parts, theme.Pause.Render([4]string{"PER-TASK", "PER-TASK", "PER-TASK", "PT"}[tier]))
		}
		if s.Priority {
			parts = append(parts, theme.Pause.Render([4]string{"PRIORITY", "PRIORITY", "PRIORITY", "PRIO"}[tier]))
		}
		return strings.Join(parts, sep)
	}
	t := "t=" + fmtSeconds(s.Elapsed.Seconds())
	longest := "t=" + fmtSeconds(9999.9)
	var line string
	for _, try := range []struct {
		tier int
		sep  string
	}{{0, "  "}, {0, " "}, {1, "  "}, {1, " "}, {2, "  "}, {2, " "}, {3, "  "}, {3, " "}} {
		if lipgloss.Width(build(try.tier, try.sep, longest)) <= w {
			return build(try.tier, try.sep, t)
		}
		line = build(try.tier, try.sep, t)
	}
	return cut(line, w)
}

// processField names the attached program's process: its pid and when
// its agent started, "new" (warm) when it replaced one read before on the
// address (Earlier); the shortest tier leaves it out. false in process, or
// when the pid is unknown.
func processField(s session.Snapshot) (struct{ forms [4]string }, bool) {
	var f struct{ forms [4]string }
	if s.Remote == "" || s.PID == 0 {
		return f, false
	}
	pid := fmt.Sprintf("pid %d", s.PID)
	since := s.Since.Format("15:04:05")
	f.forms = [4]string{pid + " since " + since, pid + " " + since, pid, ""}
	if n := len(s.Earlier); n > 0 {
		was := fmt.Sprintf("was %d", s.Earlier[n-1].PID)
		f.forms = [4]string{"new " + pid + " since " + since + " (" + was + ")", "new " + pid + " " + since, "new " + pid, ""}
		for i := range f.forms[:3] {
			f.forms[i] = theme.Warm.Render(f.forms[i])
		}
	}
	return f, true
}
