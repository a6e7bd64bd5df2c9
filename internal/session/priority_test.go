package session

import (
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/testkit"
	"github.com/offtop/offtop/pool"
)

// TestPriorityKeepsItsOwnRows: the priority action turns the pool's
// priority workers on and off; the size held both ways is two rows, each
// naming the GOMAXPROCS without the Ps priority workers add.
func TestPriorityKeepsItsOwnRows(t *testing.T) {
	if !pool.PriorityAvailable() {
		t.Skip("no priority workers on " + runtime.GOOS)
	}
	defer goleak.VerifyNone(t)
	base := runtime.GOMAXPROCS(0)
	s, clk := onFake(t, Config{Scenario: "count", Workers: 2, Scale: 0.01})
	if err := s.Apply(Action{Kind: TogglePriority}); err != nil {
		t.Fatal(err)
	}
	if !s.Snapshot().Priority || runtime.GOMAXPROCS(0) != base+2 {
		t.Fatalf("priority %v, GOMAXPROCS %d: want on, %d", s.Snapshot().Priority, runtime.GOMAXPROCS(0), base+2)
	}
	rows := func() (plain, prio *SizeRow) {
		snap := s.Snapshot()
		for i, r := range snap.Sizes {
			if r.Workers == 2 && r.GOMAXPROCS == base {
				if r.Priority {
					prio = &snap.Sizes[i]
				} else {
					plain = &snap.Sizes[i]
				}
			}
		}
		return plain, prio
	}
	testkit.StepUntil(t, clk, "a plain and a priority row at 2 workers", func() bool {
		plain, prio := rows()
		return plain != nil && prio != nil && prio.Current && !plain.Current
	})
	if err := s.Apply(Action{Kind: TogglePriority}); err != nil {
		t.Fatal(err)
	}
	if runtime.GOMAXPROCS(0) != base {
		t.Fatalf("priority off: GOMAXPROCS %d, want %d", runtime.GOMAXPROCS(0), base)
	}
	testkit.StepUntil(t, clk, "the plain row in force again", func() bool {
		plain, prio := rows()
		return !s.Snapshot().Priority && plain != nil && plain.Current && prio != nil && !prio.Current
	})
	if n := len(s.Snapshot().Sizes); n != 2 {
		t.Errorf("%d rows, want 2: %+v", n, s.Snapshot().Sizes)
	}
	s.Close()
}

// TestPausedStartsPaused: Config.Paused pauses the load before the
// scenario starts, so the stall scenario never stalls (over two of its
// periods on the fake clock), and holds no size.
func TestPausedStartsPaused(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, step := stepped(t, Config{Scenario: "stall", Workers: 1, Paused: true, Interval: 20 * time.Millisecond})
	var snap Snapshot
	for time.Duration(snap.Elapsed) < 2*(scenarios.DefaultStallPeriod+scenarios.DefaultStallDuration) {
		snap = step()
		drainLoop(s) // a stall posted by now has run before the next sample
	}
	snap = step()
	if !snap.Paused {
		t.Error("not paused")
	}
	for _, r := range snap.Readouts {
		if r.Key == "last_stall_ms" && r.Known {
			t.Errorf("the stall scenario stalled while paused from the start: %+v", r)
		}
	}
	for _, r := range snap.Sizes {
		if r.Held > 0 {
			t.Errorf("a size held while paused: %+v", r)
		}
	}
	s.Close()
}

// drainLoop returns once the Loop has run what was posted on it before.
func drainLoop(s *Session) {
	done := make(chan struct{})
	s.loop.Post(func() { close(done) })
	<-done
}

// TestGOMAXPROCSKeysKeepPriorityPs: with priority workers on, g, G and =
// move the base GOMAXPROCS and the pool's Ps stay added over it, so the
// size row names the base and GOMAXPROCS is base + size.
func TestGOMAXPROCSKeysKeepPriorityPs(t *testing.T) {
	if !pool.PriorityAvailable() {
		t.Skip("no priority workers on " + runtime.GOOS)
	}
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs to move GOMAXPROCS down and up")
	}
	// From the default, whatever go test -cpu set: g and G move the base
	// within 1..NumCPU.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.NumCPU()))
	s, clk := onFake(t, Config{Scenario: "count", Workers: 2, Scale: 0.01, Priority: true})
	defer s.Close()
	want := func(what string, base int) {
		t.Helper()
		// The GOMAXPROCS an Action set is read at once; the row in force
		// reaches the Snapshot with the next sample.
		if got := runtime.GOMAXPROCS(0); got != base+2 {
			t.Fatalf("%s: GOMAXPROCS %d, want %d (base %d + 2 workers)", what, got, base+2, base)
		}
		testkit.StepUntil(t, clk, what+": the row in force at the base, priority", func() bool {
			snap := s.Snapshot()
			for _, r := range snap.Sizes {
				if r.Current {
					return snap.Priority && r.GOMAXPROCS == base && r.Priority
				}
			}
			return false
		})
	}
	base := runtime.GOMAXPROCS(0) - 2
	want("at start", base)
	if err := s.Apply(Action{Kind: AddGOMAXPROCS, N: -1}); err != nil {
		t.Fatal(err)
	}
	want("after g", base-1)
	if err := s.Apply(Action{Kind: AddGOMAXPROCS, N: 1}); err != nil {
		t.Fatal(err)
	}
	want("after G", base)
	if err := s.Apply(Action{Kind: DefaultGOMAXPROCS}); err != nil {
		t.Fatal(err)
	}
	want("after =", runtime.GOMAXPROCS(0)-2)
}

// TestProgramPriorityPoolIsPriority: a program's own pool made with
// priority workers shows as priority, and its row names the GOMAXPROCS
// without the Ps they added.
func TestProgramPriorityPoolIsPriority(t *testing.T) {
	if !pool.PriorityAvailable() {
		t.Skip("no priority workers on " + runtime.GOOS)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	base := runtime.GOMAXPROCS(0)
	p := testPool(t, pool.Options{Size: 2, Priority: true})
	_, next := programOnFakeClock(t, p)
	snap := next()
	if !snap.Priority {
		t.Errorf("a program's priority pool: priority false")
	}
	for _, r := range snap.Sizes {
		if r.Current && (r.GOMAXPROCS != base || !r.Priority) {
			t.Errorf("row in force %+v, want GOMAXPROCS %d, priority", r, base)
		}
	}
}
