package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sweep"
	"github.com/offtop/offtop/internal/ui"
)

// summary is what offtop prints when a run ends (--no-summary turns it
// off): per scenario, each pool size used, how long, the Loop probe's p99
// and max at that size, tasks/s and CPU/wall at that size, and the
// scenario's answer_ok. It is built from every Snapshot of the session's
// Samples stream, in order; Add is cheap and the figures are computed in
// Write, once.
//
// What "probe p99 at a size" is, honestly: the Snapshot carries the probe's
// histograms only as summaries (a 5s sliding window and since the last
// reset), not the values, so a per-size histogram cannot be built here.
// Right after a switch the window still holds the size before. So a row's
// p99 and max are the worst of the measurements that lie wholly at that
// size:
//   - the since-reset histogram at the end of a stretch that began with it
//     fresh (the run's first size; a scenario just switched to), and after
//     a reset (r) within a stretch;
//   - every sliding window read at least one window after the stretch began.
//
// A size held for less than one window after a switch has no such
// measurement: its row shows the window read at its last sample, which
// still holds the size before, and is marked "*".
//
// summary is not safe for concurrent use: one goroutine Adds, then Writes.
type summary struct {
	first string         // the scenario the run started with, for a run too short for a sample
	scens []*scenSummary // in order of first use
	last  session.Snapshot
	n     int // samples added
	cur   *stretch
	end   time.Duration
}

// scenSummary is one scenario's rows and answer.
type scenSummary struct {
	name     string
	rows     map[int]*sizeRow
	answer   *bool // answer_ok at the last sample that knew it
	held     time.Duration
	interval time.Duration
	window   time.Duration
}

// sizeRow is one pool size within a scenario.
type sizeRow struct {
	workers   int
	held      time.Duration // wall time at this size, sample to sample (and the tail)
	sampled   time.Duration // the part of held covered by samples, for rates
	completed int64
	cpu       float64 // CPU seconds; cpuOK false when unknown
	cpuOK     bool
	clean     bool          // at least one clean measurement below
	p99, max  time.Duration // the worst clean p99 and max
	mixed     hist.Summary  // the window at the last sample, for rows with no clean measurement
}

// stretch is a run of consecutive samples at one scenario and pool size.
type stretch struct {
	row        *sizeRow
	scen       string
	workers    int
	first      time.Duration // Elapsed of its first sample
	totalClean bool          // the since-reset histogram holds only this stretch
	total      hist.Summary  // the since-reset histogram at the last sample, when totalClean
}

// add records a clean measurement.
func (r *sizeRow) add(s hist.Summary) {
	if s.Count == 0 {
		return
	}
	r.clean = true
	r.p99 = max(r.p99, s.P99)
	r.max = max(r.max, s.Max)
}

// Add takes the next sample.
func (sm *summary) Add(s session.Snapshot) {
	prev := sm.last
	first := sm.n == 0
	sm.n++
	sm.last = s

	sc := sm.scenario(s.Scenario)
	sc.interval, sc.window = s.Interval, s.Window
	for _, r := range s.Readouts {
		if r.Key == "answer_ok" && r.Known {
			ok := r.Value != 0
			sc.answer = &ok
		}
	}
	row := sc.rows[s.Workers]
	if row == nil {
		row = &sizeRow{workers: s.Workers}
		sc.rows[s.Workers] = row
	}
	dt := s.Elapsed - prev.Elapsed // prev is zero before the first sample: from the start
	row.held += dt
	sc.held += dt
	row.sampled += dt
	row.completed += s.Completed - prev.Completed
	if s.CPUPercent >= 0 && (first || prev.CPUPercent >= 0) {
		row.cpu += s.CPUSeconds - prev.CPUSeconds
		row.cpuOK = true
	}

	reset := !first && s.ProbeTotal.Count < prev.ProbeTotal.Count
	st := sm.cur
	if st == nil || st.scen != s.Scenario || st.workers != s.Workers {
		sm.endStretch()
		// Fresh histograms: the run's start, or a scenario switch (which
		// resets them); a reset seen together with a size change may
		// have come before the change, so it does not count.
		st = &stretch{row: row, scen: s.Scenario, workers: s.Workers, first: s.Elapsed,
			totalClean: first || (st != nil && st.scen != s.Scenario)}
		sm.cur = st
	} else if reset {
		// r within the stretch: what the since-reset histogram held
		// before is a measurement of its own; from now on it holds only
		// this size.
		if st.totalClean {
			row.add(st.total)
		}
		st.totalClean = true
	}
	if st.totalClean {
		st.total = s.ProbeTotal
	}
	if s.Window > 0 && s.Elapsed-st.first >= s.Window {
		row.add(s.Probe)
	}
	row.mixed = s.Probe
}

// endStretch folds the current stretch's since-reset measurement in.
func (sm *summary) endStretch() {
	if st := sm.cur; st != nil && st.totalClean {
		st.row.add(st.total)
	}
	sm.cur = nil
}

func (sm *summary) scenario(name string) *scenSummary {
	for _, sc := range sm.scens {
		if sc.name == name {
			return sc
		}
	}
	sc := &scenSummary{name: name, rows: map[int]*sizeRow{}}
	sm.scens = append(sm.scens, sc)
	return sc
}

// Finish ends the summary at end, the run's wall time since the session
// started: the time after the last sample goes to the last size.
func (sm *summary) Finish(end time.Duration) {
	sm.endStretch()
	sm.end = max(end, sm.last.Elapsed)
	if sm.n == 0 {
		return
	}
	tail := sm.end - sm.last.Elapsed
	sc := sm.scenario(sm.last.Scenario)
	sc.rows[sm.last.Workers].held += tail
	sc.held += tail
}

// Write prints the summary to w through lipgloss, so colours follow the
// terminal and NO_COLOR. Call Finish first.
func (sm *summary) Write(w io.Writer) error {
	_, err := lipgloss.Fprint(w, sm.String())
	return err
}

// String is the summary's text, styled (threshold colours and marks).
func (sm *summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "offtop ran %s", secs(sm.end))
	if sm.n == 0 {
		fmt.Fprintf(&b, ": %s, no sample taken yet\n", sm.first)
		return b.String()
	}
	fmt.Fprintf(&b, ": GOMAXPROCS %d, NumCPU %d", sm.last.GOMAXPROCS, sm.last.NumCPU)
	if sm.last.CPUPercent >= 0 {
		fmt.Fprintf(&b, ", CPU %.2fs", sm.last.CPUSeconds)
	}
	b.WriteString("\n")
	anyMixed := false
	var window time.Duration
	for _, sc := range sm.scens {
		answer := "n/a"
		if sc.answer != nil {
			answer = strconv.FormatBool(*sc.answer)
		}
		window = max(window, sc.window)
		fmt.Fprintf(&b, "%s %s  answer_ok %s\n", sc.name, secs(sc.held), answer)
		fmt.Fprintf(&b, "  %7s %7s %13s %13s %8s %9s\n", "workers", "time", "probe p99 ms", "probe max ms", "tasks/s", "CPU/wall")
		sizes := make([]int, 0, len(sc.rows))
		for n := range sc.rows {
			sizes = append(sizes, n)
		}
		slices.Sort(sizes)
		for _, n := range sizes {
			r := sc.rows[n]
			label := strconv.Itoa(n)
			if n == 0 {
				label = "inline"
			}
			p99, mx := r.p99, r.max
			if !r.clean {
				p99, mx = r.mixed.P99, r.mixed.Max
				if r.mixed.Count > 0 {
					label += "*"
					anyMixed = true
				}
			}
			p99cell, mxs := fmt.Sprintf("%12s ", "n/a"), "n/a"
			if r.clean || r.mixed.Count > 0 {
				p99cell, mxs = ui.MarkProbeP99(fmt.Sprintf("%12s", num(ms(p99))), p99), num(ms(mx))
			}
			rate, cpu := "n/a", "n/a"
			if r.sampled > 0 {
				rate = num(float64(r.completed) / r.sampled.Seconds())
				if r.cpuOK {
					cpu = num(r.cpu / r.sampled.Seconds())
				}
			}
			fmt.Fprintf(&b, "  %7s %7s %s %13s %8s %9s\n", label, secs(r.held), p99cell, mxs, rate, cpu)
		}
	}
	fmt.Fprintf(&b, "probe: Loop lateness, corrected; the worst p99 and max measured at each size\n")
	if anyMixed {
		fmt.Fprintf(&b, "* held under one %s window after a switch: the figure still includes the size before\n", fmtWindow(window))
	}
	return b.String()
}

// fmtWindow is a window length as the dashboard says it: 5s, 1m, 1m30s.
func fmtWindow(d time.Duration) string {
	if d <= 0 {
		return "sliding"
	}
	return ui.Span(d)
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// num is sweep's figure format, so the summary and the sweep table agree.
func num(v float64) string { return sweep.Figure(v) }

// collectSummary consumes samples until the channel closes, adding each to
// sm, and closes done. It runs on its own goroutine (crash.Go): the TUI
// reads Snapshot on its own ticks, so this is the one reader of Samples.
// hook, when not nil, is called with each sample first (OFFTOP_TEST_PANIC).
func collectSummary(samples <-chan session.Snapshot, sm *summary, hook func(), done chan<- struct{}) {
	crash.Go(func() {
		defer close(done)
		for s := range samples {
			if hook != nil {
				hook()
			}
			sm.Add(s)
		}
	})
}
