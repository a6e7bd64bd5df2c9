package scenarios_test

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"go.uber.org/goleak"
)

func readout(s session.Snapshot, key string) (scenarios.Readout, bool) {
	for _, r := range s.Readouts {
		if r.Key == key {
			return r, true
		}
	}
	return scenarios.Readout{}, false
}

// TestEachScenarioAnswersAndCleansUp runs every scenario for a few seconds
// through a real session: its answer checks out, the pool's counts add up
// at every sample, and after Close none of its goroutines is left.
func TestEachScenarioAnswersAndCleansUp(t *testing.T) {
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			defer goleak.VerifyNone(t)
			s, err := session.New(session.Config{Scenario: name, Workers: 2, Scale: 0.05,
				Interval: 50 * time.Millisecond, Window: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			deadline := time.After(20 * time.Second)
			var last session.Snapshot
		loop:
			for {
				select {
				case snap := <-s.Samples():
					if got := snap.Completed + snap.Failed + snap.TimedOut + snap.Running + snap.QueueDepth; !snap.Balanced() {
						t.Fatalf("counts do not add up: %d vs submitted %d", got, snap.Submitted)
					}
					last = snap
					for _, r := range snap.Readouts {
						if r.Unit != scenarios.UnitOf(r.Key) && !r.Bool && !r.Str {
							t.Errorf("readout %s is in %q, its key names %q", r.Key, r.Unit, scenarios.UnitOf(r.Key))
						}
					}
					if r, ok := readout(snap, "answer_ok"); ok && r.Known && time.Duration(snap.Elapsed) > 2*time.Second {
						break loop
					}
				case <-deadline:
					break loop
				}
			}
			s.Close()
			r, ok := readout(last, "answer_ok")
			if !ok || !r.Known || r.Value != 1 {
				t.Errorf("answer_ok = %+v after %v", r, last.Elapsed)
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	names := scenarios.Names()
	if len(names) == 0 || names[0] != scenarios.Default {
		t.Fatalf("Names() = %v, want %s first", names, scenarios.Default)
	}
	for _, n := range names {
		if scenarios.Summary(n) == "" {
			t.Errorf("%s has no summary", n)
		}
		s, err := scenarios.New(n, scenarios.Config{})
		if err != nil || s.Name() != n || s.Look() == "" {
			t.Errorf("New(%q) = %v, %v", n, s, err)
		}
	}
	if _, err := scenarios.New("nope", scenarios.Config{}); err == nil {
		t.Error("unknown scenario: no error")
	}
}
