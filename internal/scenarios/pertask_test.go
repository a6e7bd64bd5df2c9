package scenarios_test

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"go.uber.org/goleak"
)

// burst runs count's burst of jobs jobs at workers, on the pool or with a
// goroutine per task, until 2 batches are done.
func burst(t *testing.T, workers, jobs int, scale float64, perTask bool) session.Snapshot {
	t.Helper()
	return untilBatches(t, burstConfig(workers, jobs, scale, perTask), 2)
}

// burstConfig is count's burst of jobs jobs at workers, on the pool or
// with a goroutine per task.
func burstConfig(workers, jobs int, scale float64, perTask bool) session.Config {
	return session.Config{Scenario: "count", Workers: workers, Scale: scale, PerTask: perTask,
		Scenarios: scenarios.Config{CountJobs: jobs}}
}

// TestPerTaskBurstRunsEveryJobAtOnce: with a goroutine per task, a burst
// of 16 jobs on a pool of 1 has more than one task running at once (the
// pool alone never would; the jobs, ~30 ms, outlast the scheduler's 10 ms
// time slice, so a started goroutine is preempted for the next), the
// answer is right and the counts add up at every sample; the burst's
// first, median and last completions are known, in that order.
func TestPerTaskBurstRunsEveryJobAtOnce(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := session.New(session.Config{Scenario: "count", Workers: 1, Scale: 0.5, PerTask: true,
		Interval: 10 * time.Millisecond, Window: time.Second,
		Scenarios: scenarios.Config{CountJobs: 16}})
	if err != nil {
		t.Fatal(err)
	}
	maxRunning := int64(0)
	deadline := time.After(60 * time.Second)
	var last session.Snapshot
loop:
	for {
		select {
		case snap := <-s.Samples():
			if !snap.Balanced() {
				t.Fatalf("counts do not add up at %v", snap.Elapsed)
			}
			maxRunning = max(maxRunning, snap.Running)
			last = snap
			if r, _ := readout(snap, "batches"); r.Value >= 2 {
				break loop
			}
		case <-deadline:
			t.Fatal("no 2 batches in 60s")
		}
	}
	s.Close()
	if maxRunning < 2 {
		t.Errorf("per-task on a pool of 1: at most %d running at once", maxRunning)
	}
	if ok, _ := readout(last, "answer_ok"); !ok.Known || ok.Value != 1 {
		t.Errorf("answer_ok = %+v", ok)
	}
	f, _ := readout(last, "first_done_ms")
	m, _ := readout(last, "median_done_ms")
	l, _ := readout(last, "last_done_ms")
	if !(f.Known && m.Known && l.Known && f.Value <= m.Value && m.Value <= l.Value) {
		t.Errorf("first %+v, median %+v, last %+v", f, m, l)
	}
}

// TestPerTaskKeyToggles: u turns the mode on and off; the snapshot says so.
func TestPerTaskKeyToggles(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := session.New(session.Config{Scenario: "count", Workers: 1, Scale: 0.02,
		Interval: 20 * time.Millisecond, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, want := range []bool{true, false} {
		if err := s.Apply(session.Action{Kind: session.TogglePerTask}); err != nil {
			t.Fatal(err)
		}
		if got := s.Snapshot().PerTask; got != want {
			t.Errorf("after u: per_task %v, want %v", got, want)
		}
	}
}
