package main

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
)

const sec = time.Second

func msd(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// sampleAt is a Snapshot at t with the window probe (p99, max) and the
// since-reset probe (tp99, tmax, tcount), completed tasks and CPU seconds.
type sampleAt struct {
	t                 time.Duration
	scen              string
	workers           int
	completed         int64
	cpu               float64
	p99, max          float64
	tp99, tmax        float64
	tcount            int64
	answerOK, unknown bool
}

func (s sampleAt) snap() session.Snapshot {
	scen := s.scen
	if scen == "" {
		scen = "server"
	}
	snap := session.Snapshot{
		Elapsed: s.t, Scenario: scen, Workers: s.workers, Completed: s.completed,
		CPUSeconds: s.cpu, CPUPercent: 100, GOMAXPROCS: 2, NumCPU: 2,
		Probe:      hist.Summary{P99: msd(s.p99), Max: msd(s.max), Count: 100},
		ProbeTotal: hist.Summary{P99: msd(s.tp99), Max: msd(s.tmax), Count: s.tcount},
		Interval:   sec, Window: 5 * sec,
	}
	if !s.unknown {
		v := 0.0
		if s.answerOK {
			v = 1
		}
		snap.Readouts = []scenarios.Readout{{Key: "answer_ok", Label: "answer ok", Value: v, Known: true, Bool: true}}
	}
	return snap
}

func summarize(end time.Duration, samples ...sampleAt) (*summary, string) {
	sm := &summary{first: "server"}
	for _, s := range samples {
		sm.Add(s.snap())
	}
	sm.Finish(end)
	return sm, ansi.Strip(sm.String())
}

// row finds the summary row of workers in scenario scen.
func row(t *testing.T, sm *summary, scen string, workers int) *sizeRow {
	t.Helper()
	for _, sc := range sm.scens {
		if sc.name == scen && sc.rows[workers] != nil {
			return sc.rows[workers]
		}
	}
	t.Fatalf("no row %s/%d", scen, workers)
	return nil
}

// TestSummaryOneSizeUsesSinceReset: a run at one size reads p99 and max
// from the since-reset histogram (the whole run), not a window.
func TestSummaryOneSizeUsesSinceReset(t *testing.T) {
	sm, out := summarize(3500*time.Millisecond,
		sampleAt{t: 1 * sec, workers: 1, completed: 10, cpu: 1, p99: 9, max: 9, tp99: 1, tmax: 2, tcount: 100, answerOK: true},
		sampleAt{t: 2 * sec, workers: 1, completed: 20, cpu: 2, p99: 9, max: 9, tp99: 1.5, tmax: 3, tcount: 200, answerOK: true},
		sampleAt{t: 3 * sec, workers: 1, completed: 30, cpu: 3, p99: 9, max: 9, tp99: 1.2, tmax: 3, tcount: 300, answerOK: true},
	)
	r := row(t, sm, "server", 1)
	if !r.clean || r.p99 != msd(1.2) || r.max != msd(3) {
		t.Errorf("row %+v: want the since-reset p99 1.2 and max 3 at the last sample", r)
	}
	if r.held != 3500*time.Millisecond || r.sampled != 3*sec {
		t.Errorf("held %v sampled %v, want 3.5s and 3s", r.held, r.sampled)
	}
	for _, want := range []string{"offtop ran 3.5s: GOMAXPROCS 2, NumCPU 2, CPU 3.00s", "server 3.5s  answer_ok true"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	hasRow(t, out, "1 3.5s 1.20 3 10 1")
	if strings.Contains(out, "*") {
		t.Errorf("a * without a mixed row:\n%s", out)
	}
}

// TestSummarySwitchUsesOnlyWindowsWhollyAtTheSize: after 1 -> 0 at 2s,
// the inline row takes only windows read one window (5s) after its first
// sample; the earlier windows, still holding workers 1, are left out.
func TestSummarySwitchUsesOnlyWindowsWhollyAtTheSize(t *testing.T) {
	var ss []sampleAt
	for i := 1; i <= 10; i++ {
		s := sampleAt{t: time.Duration(i) * sec, completed: int64(10 * i), cpu: float64(i), tcount: int64(100 * i), answerOK: true}
		switch {
		case i <= 2:
			s.workers, s.p99, s.max, s.tp99, s.tmax = 1, 1, 2, 1, 2
		case i < 8: // inline, the window still holds some of workers 1
			s.p99, s.max, s.tp99, s.tmax = 100+float64(i), 300, 200, 300
		default: // from 3s + 5s on: windows wholly inline
			s.p99, s.max, s.tp99, s.tmax = 230+float64(i), 250, 200, 300
		}
		ss = append(ss, s)
	}
	sm, out := summarize(10*sec, ss...)
	if r := row(t, sm, "server", 0); !r.clean || r.p99 != msd(240) || r.max != msd(250) {
		t.Errorf("inline row %+v: want the worst settled window, p99 240 max 250", r)
	}
	if r := row(t, sm, "server", 1); !r.clean || r.p99 != msd(1) || r.max != msd(2) {
		t.Errorf("workers 1 row %+v: want its since-reset p99 1 and max 2", r)
	}
	if r := row(t, sm, "server", 0); r.held != 8*sec || r.completed != 80 {
		t.Errorf("inline held %v completed %d, want 8s and 80", r.held, r.completed)
	}
	hasRow(t, out, "inline 8.0s 240! 250 10 1")
}

// TestSummaryShortHoldIsMarked: a size held under one window after a
// switch has only mixed windows: the row shows the last and a *.
func TestSummaryShortHoldIsMarked(t *testing.T) {
	sm, out := summarize(4*sec,
		sampleAt{t: 1 * sec, workers: 1, p99: 1, max: 2, tp99: 1, tmax: 2, tcount: 100},
		sampleAt{t: 2 * sec, workers: 4, p99: 20, max: 30, tp99: 15, tmax: 30, tcount: 200},
		sampleAt{t: 3 * sec, workers: 4, p99: 25, max: 31, tp99: 18, tmax: 31, tcount: 300},
	)
	if r := row(t, sm, "server", 4); r.clean || r.mixed.P99 != msd(25) {
		t.Errorf("row %+v: want no clean measurement, mixed p99 25", r)
	}
	hasRow(t, out, "4* 3.0s 25▲ 31 0 0") // 2s sampled and the 1s tail
	if !strings.Contains(out, "* held under one 5s window after a switch") {
		t.Errorf("no footnote:\n%s", out)
	}
}

// TestSummaryResetWithinAStretch: r mid-stretch starts a clean since-reset
// measurement of this size, even for a stretch that began mixed.
func TestSummaryResetWithinAStretch(t *testing.T) {
	sm, _ := summarize(5*sec,
		sampleAt{t: 1 * sec, workers: 0, p99: 200, max: 250, tp99: 200, tmax: 250, tcount: 100},
		sampleAt{t: 2 * sec, workers: 2, p99: 150, max: 250, tp99: 190, tmax: 250, tcount: 200},
		sampleAt{t: 3 * sec, workers: 2, p99: 3, max: 4, tp99: 3, tmax: 4, tcount: 10}, // reset
		sampleAt{t: 4 * sec, workers: 2, p99: 3, max: 5, tp99: 3.5, tmax: 5, tcount: 20},
	)
	if r := row(t, sm, "server", 2); !r.clean || r.p99 != msd(3.5) || r.max != msd(5) {
		t.Errorf("row %+v: want the since-reset figures after r, p99 3.5 max 5", r)
	}
}

// TestSummaryScenarioSwitch: tab starts a block of its own, with fresh
// histograms, and each scenario keeps its answer.
func TestSummaryScenarioSwitch(t *testing.T) {
	sm, out := summarize(4*sec,
		sampleAt{t: 1 * sec, workers: 1, p99: 1, max: 2, tp99: 1, tmax: 2, tcount: 100, answerOK: true},
		sampleAt{t: 2 * sec, workers: 1, p99: 1, max: 2, tp99: 1, tmax: 2, tcount: 200, answerOK: true},
		sampleAt{t: 3 * sec, scen: "count", workers: 1, p99: 30, max: 40, tp99: 30, tmax: 40, tcount: 50, unknown: true},
	)
	if r := row(t, sm, "count", 1); !r.clean || r.p99 != msd(30) {
		t.Errorf("count row %+v: want clean p99 30 from its fresh histograms", r)
	}
	if !strings.Contains(out, "server 2.0s  answer_ok true") || !strings.Contains(out, "count 2.0s  answer_ok n/a") {
		t.Errorf("blocks:\n%s", out)
	}
}

// hasRow checks that out has a line whose fields are those of want.
func hasRow(t *testing.T, out, want string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(l), " ") == want {
			return
		}
	}
	t.Errorf("no row %q in:\n%s", want, out)
}

func TestSummaryNoSamples(t *testing.T) {
	_, out := summarize(100 * time.Millisecond)
	if out != "offtop ran 0.1s: server, no sample taken yet\n" {
		t.Errorf("summary %q", out)
	}
}
