package scenarios_test

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"go.uber.org/goleak"
)

// untilBatches runs a session of c until its batches readout reaches n,
// checking at every sample that the counts add up and that per_task is
// c.PerTask; it returns that sample.
func untilBatches(t *testing.T, c session.Config, n float64) session.Snapshot {
	t.Helper()
	snap, ok := batchesWithin(t, c, n, 60*time.Second)
	if !ok {
		t.Fatalf("%s: no %v batches in 60s", c.Scenario, n)
	}
	return snap
}

// batchesWithin is untilBatches with its own limit: false, and the last
// sample, when n batches were not done within limit.
func batchesWithin(t *testing.T, c session.Config, n float64, limit time.Duration) (session.Snapshot, bool) {
	t.Helper()
	c.Interval, c.Window = 20*time.Millisecond, time.Second
	s, err := session.New(c)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deadline := time.After(limit)
	var last session.Snapshot
	for {
		select {
		case snap := <-s.Samples():
			if !snap.Balanced() {
				t.Fatalf("counts do not add up at %v: submitted %d, completed %d failed %d running %d queued %d",
					snap.Elapsed, snap.Submitted, snap.Completed, snap.Failed, snap.Running, snap.QueueDepth)
			}
			if snap.PerTask != c.PerTask {
				t.Fatalf("snapshot per_task %v, want %v", snap.PerTask, c.PerTask)
			}
			last = snap
			if r, ok := readout(snap, "batches"); ok && r.Value >= n {
				return snap, true
			}
		case <-deadline:
			return last, false
		}
	}
}

// countBatch runs count with cfg until it has finished 2 batches.
func countBatch(t *testing.T, workers int, scale float64, cfg scenarios.Config) session.Snapshot {
	t.Helper()
	return untilBatches(t, session.Config{Scenario: "count", Workers: workers, Scale: scale, Scenarios: cfg}, 2)
}

// TestCountSliceSplitStarvesFirstWorker is seed 000 s1 (docs/seeds.md): 5
// jobs on 6 workers split with a fractional slice: the first worker gets
// nothing, and the answer is still right, so nothing looks wrong.
func TestCountSliceSplitStarvesFirstWorker(t *testing.T) {
	defer goleak.VerifyNone(t)
	snap := countBatch(t, 6, 0.02, scenarios.Config{CountSplit: scenarios.SplitSlice, CountJobs: 5})
	r, _ := readout(snap, "jobs_min_per_worker")
	if !r.Known || r.Value != 0 || r.Text != "[0 1 1 1 1 1]" {
		t.Errorf("jobs per worker = %+v, want [0 1 1 1 1 1]", r)
	}
	if ok, _ := readout(snap, "answer_ok"); !ok.Known || ok.Value != 1 {
		t.Errorf("answer_ok = %+v, want true", ok)
	}
	if n, _ := readout(snap, "jobs_counted"); n.Value != 5 {
		t.Errorf("jobs counted = %+v, want 5", n)
	}
}

// TestCountChunkifyDoesTheWorkTwiceAndSaysSo is the seed's section 2: 2 jobs
// on 4 workers with chunkify become [1 1 1 2], 5 jobs counted, and
// answer_ok is false, as the seed's later script would have printed.
func TestCountChunkifyDoesTheWorkTwiceAndSaysSo(t *testing.T) {
	defer goleak.VerifyNone(t)
	snap := countBatch(t, 4, 0.02, scenarios.Config{CountSplit: scenarios.SplitChunkify, CountJobs: 2})
	if r, _ := readout(snap, "jobs_min_per_worker"); r.Text != "[1 1 1 2]" {
		t.Errorf("jobs per worker = %+v, want [1 1 1 2]", r)
	}
	if n, _ := readout(snap, "jobs_counted"); n.Value != 5 {
		t.Errorf("jobs counted = %+v, want 5", n)
	}
	if ok, _ := readout(snap, "answer_ok"); !ok.Known || ok.Value != 0 {
		t.Errorf("answer_ok = %+v, want false", ok)
	}
}

// TestCountSplitKeyCycles: the p knob moves the split through the list and
// the next batch reports it.
func TestCountSplitKeyCycles(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := session.New(session.Config{Scenario: "count", Workers: 2, Scale: 0.02,
		Interval: 20 * time.Millisecond, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Apply(session.Action{Kind: session.Turn, Key: "p"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case snap := <-s.Samples():
			r, _ := readout(snap, "split")
			n, _ := readout(snap, "batches")
			if r.Text == scenarios.SplitEven && n.Value >= 1 {
				if w, _ := readout(snap, "jobs_min_per_worker"); w.Text != "[8 8]" {
					t.Errorf("even split of 16 on 2: %+v", w)
				}
				return
			}
		case <-deadline:
			t.Fatal("split never became even")
		}
	}
}
