package scenarios_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"go.uber.org/goleak"
)

// num returns a known numeric readout or fails the test.
func num(t *testing.T, s session.Snapshot, key string) float64 {
	t.Helper()
	r, ok := readout(s, key)
	if !ok || !r.Known {
		t.Fatalf("readout %s missing or n/a: %+v", key, r)
	}
	return r.Value
}

// Seed 003 through a real session, 1 worker on a 2-core box: over 2,000
// tasks (5% panic, 1% hang past a 50 ms deadline) every task the scenario
// submitted reaches exactly one outcome, the pool's counts match the
// scenario's at every sample, hung goroutines are abandoned and replaced,
// and after Close nothing is left running. That the Loop stays responsive
// meanwhile is a timing shape: TestShapeCrashLoopStaysResponsive.
func TestCrashCountsAddUpOver2000Tasks(t *testing.T) {
	defer goleak.VerifyNone(t)
	crash2000(t)
}

// crash2000 runs TestCrashCountsAddUpOver2000Tasks's session, checks its
// counts and returns its last snapshot, the session closed.
func crash2000(t *testing.T) session.Snapshot {
	t.Helper()
	s, err := session.New(session.Config{Scenario: "crash", Workers: 1, Scale: 0.05,
		Interval: 50 * time.Millisecond, Window: 2 * time.Second,
		Scenarios: scenarios.Config{CrashRate: 400, CrashTimeout: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deadline := time.After(25 * time.Second)
	var last session.Snapshot
	var maxAbandoned int64
	checked := 0
loop:
	for {
		select {
		case snap := <-s.Samples():
			if got := snap.Completed + snap.Failed + snap.TimedOut + snap.Running + snap.QueueDepth; !snap.Balanced() {
				t.Fatalf("pool counts do not add up: %d vs submitted %d", got, snap.Submitted)
			}
			if snap.TimedOut > snap.Failed {
				t.Fatalf("timed out %d is not part of failed %d", snap.TimedOut, snap.Failed)
			}
			if r, ok := readout(snap, "answer_ok"); ok && r.Known {
				if r.Value != 1 {
					t.Fatalf("answer_ok false at %v: %+v", snap.Elapsed, snap.Readouts)
				}
				checked++
			}
			maxAbandoned = max(maxAbandoned, snap.Abandoned)
			last = snap
			if r, ok := readout(snap, "submitted"); ok && r.Value >= 2000 && checked > 0 {
				break loop
			}
		case <-deadline:
			t.Fatalf("fewer than 2000 tasks in 25s: %+v", last.Readouts)
		}
	}
	// The scenario's readouts and the pool's counts in a snapshot are read
	// moments apart; answer_ok is the exact comparison (see crash.consistent).
	sub := num(t, last, "submitted")
	if done := num(t, last, "completed") + num(t, last, "panicked") + num(t, last, "timed_out"); done > sub {
		t.Errorf("scenario: %v tasks done of %v submitted", done, sub)
	}
	if num(t, last, "panicked") == 0 || num(t, last, "timed_out") == 0 || last.TimedOut == 0 {
		t.Errorf("no panics or no timeouts over %v tasks: %+v", sub, last.Readouts)
	}
	if rep := num(t, last, "replaced"); rep < num(t, last, "panicked")+num(t, last, "timed_out") {
		t.Errorf("replaced %v < failed + timed out", rep)
	}
	if maxAbandoned == 0 {
		t.Error("no abandoned goroutine seen")
	}
	t.Logf("%d checks; %v submitted; pool: completed %d failed %d (timed out %d) replaced %d abandoned max %d; probe p99 %v (free goroutine %v); task p99 %v; CPU %.0f%%",
		checked, sub, last.Completed, last.Failed, last.TimedOut, last.Replaced, maxAbandoned, last.Probe.P99, last.Sched.P99, last.Task.P99, last.CPUPercent)
	s.Close()
	return last
}

// [ and ] step the panic share: the load text follows.
func TestCrashLoadStepsPanicShare(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := session.New(session.Config{Scenario: "crash", Workers: 1, Scale: 0.05,
		Interval: 20 * time.Millisecond, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := func(text string) {
		t.Helper()
		testkit.WaitFor(t, fmt.Sprintf("%q in the load text", text), 0, func() bool { return strings.Contains(s.Snapshot().Load, text) })
	}
	want("5% panic")
	for _, c := range []struct {
		n    int
		text string
	}{{1, "10% panic"}, {1, "25% panic"}, {1, "25% panic"}, {-3, "1% panic"}, {-1, "0% panic"}, {-1, "0% panic"}} {
		if err := s.Apply(session.Action{Kind: session.Load, N: c.n}); err != nil {
			t.Fatal(err)
		}
		want(c.text)
	}
	s.Close()
}
