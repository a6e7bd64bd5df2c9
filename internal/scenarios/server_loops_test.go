package scenarios_test

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"go.uber.org/goleak"
)

// waitReadout waits for a sample whose readout key satisfies ok, checking
// the counts at every sample.
func waitReadout(t *testing.T, s *session.Session, key string, ok func(scenarios.Readout) bool) session.Snapshot {
	t.Helper()
	return testkit.Await(t, key+" as wanted", 0, s.Samples(), func(snap session.Snapshot) bool {
		if !snap.Balanced() {
			t.Fatalf("counts do not add up at %v", snap.Elapsed)
		}
		r, found := readout(snap, key)
		return found && ok(r)
	})
}

// TestServerLoopsChangeLive: --loops 2 starts two Loops, each probed and
// serving; L and l add and remove one live; after Close no Loop's
// goroutine is left. The fib runs on four workers, one per closed-loop
// client, so a Loop's probe is never held off by a fib(37), nor a /fast
// queued behind one (fib(37) takes 25 s under -race on a busy machine).
func TestServerLoopsChangeLive(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := session.New(session.Config{Scenario: "server", Workers: 4, Scale: 0.05,
		Interval: 50 * time.Millisecond, Window: time.Second,
		Scenarios: scenarios.Config{ServerLoops: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap := waitReadout(t, s, "loop1_p99_ms", func(r scenarios.Readout) bool { return r.Known })
	if r, _ := readout(snap, "loops"); r.Value != 2 {
		t.Errorf("loops = %v, want 2", r.Value)
	}
	waitReadout(t, s, "fast_rps", func(r scenarios.Readout) bool { return r.Value > 0 })
	if err := s.Apply(session.Action{Kind: session.Turn, Key: "L"}); err != nil {
		t.Fatal(err)
	}
	waitReadout(t, s, "loop2_p99_ms", func(r scenarios.Readout) bool { return r.Known })
	for range 3 {
		if err := s.Apply(session.Action{Kind: session.Turn, Key: "l"}); err != nil {
			t.Fatal(err)
		}
	}
	snap = waitReadout(t, s, "loops", func(r scenarios.Readout) bool { return r.Value == 1 })
	if _, found := readout(snap, "loop1_p99_ms"); found {
		t.Error("1 Loop: still a per-Loop readout")
	}
	// the one Loop left still answers
	waitReadout(t, s, "answer_ok", func(r scenarios.Readout) bool { return r.Known && r.Value == 1 })
}

// TestServerFinalSampleCountsItsLoops: the session's last sample, taken
// after the scenario stopped, gives the Loops the run had, not 0.
func TestServerFinalSampleCountsItsLoops(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := session.New(session.Config{Scenario: "server", Workers: 1, Scale: 0.05, NoLoad: true,
		Interval: 50 * time.Millisecond, Window: time.Second,
		Scenarios: scenarios.Config{ServerLoops: 2}})
	if err != nil {
		t.Fatal(err)
	}
	waitReadout(t, s, "loops", func(r scenarios.Readout) bool { return r.Value == 2 })
	s.Close()
	var last session.Snapshot
	for snap := range s.Samples() {
		last = snap
	}
	if r, _ := readout(last, "loops"); !last.Final || r.Value != 2 {
		t.Errorf("last sample: final %v, loops %v, want true, 2", last.Final, r.Value)
	}
}
