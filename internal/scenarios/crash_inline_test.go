package scenarios_test

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"go.uber.org/goleak"
)

// Seed 003 at 0 workers: a hang holds the Loop and the tasks behind it
// queue there. Past its deadline it is counted timed out and the Loop
// stuck; a resize to 4 moves the queued tasks to the workers, which empty
// the queue while the Loop still hangs (stuck until Stop releases it); the
// counts add up and the answer holds at every sample.
func TestCrashInlineHangMovesQueueOnResize(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := session.New(session.Config{Scenario: "crash", Workers: 0, Scale: 0.05,
		Interval: 50 * time.Millisecond, Window: 2 * time.Second,
		Scenarios: scenarios.Config{CrashRate: 200, CrashTimeout: 50 * time.Millisecond, CrashHangPercent: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check := func(snap session.Snapshot) {
		t.Helper()
		if !snap.Balanced() {
			t.Fatalf("counts do not add up: %+v", snap.Pool)
		}
		if r, ok := readout(snap, "answer_ok"); ok && r.Known && r.Value != 1 {
			t.Fatalf("answer_ok false: %+v", snap.Readouts)
		}
	}
	wait := func(what string, within time.Duration, ok func(session.Snapshot) bool) session.Snapshot {
		t.Helper()
		deadline := time.After(within)
		for {
			select {
			case snap := <-s.Samples():
				check(snap)
				if ok(snap) {
					return snap
				}
			case <-deadline:
				t.Fatalf("no sample with %s in %v", what, within)
			}
		}
	}
	held := wait("the Loop stuck and 20 queued behind it", 20*time.Second, func(snap session.Snapshot) bool {
		return snap.Stuck >= 1 && snap.TimedOut >= 1 && snap.QueueDepth >= 20
	})
	if err := s.Apply(session.Action{Kind: session.SetWorkers, N: 4}); err != nil {
		t.Fatal(err)
	}
	drained := wait("the queue emptied by 4 workers, the Loop still stuck", 15*time.Second, func(snap session.Snapshot) bool {
		return snap.Workers == 4 && snap.QueueDepth <= 4 && snap.Stuck >= 1 && snap.Completed > held.Completed+held.QueueDepth/2
	})
	t.Logf("at 0 workers: queued %d, stuck %d, timed out %d; at 4: queued %d, stuck %d, completed %d -> %d",
		held.QueueDepth, held.Stuck, held.TimedOut, drained.QueueDepth, drained.Stuck, held.Completed, drained.Completed)
	s.Close()
}
