package scenarios

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"
)

// isClosed reports whether c is closed now, without waiting.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// The gate's two channels mirror each other through every transition, a
// repeated state is a no-op, and the zero value runs.
func TestGateChannels(t *testing.T) {
	var g gate
	check := func(step string, paused bool) {
		t.Helper()
		if g.Paused() != paused {
			t.Fatalf("%s: Paused() = %v, want %v", step, g.Paused(), paused)
		}
		if isClosed(g.resumed()) == paused {
			t.Fatalf("%s: resumed closed = %v with paused %v", step, !paused, paused)
		}
		if isClosed(g.pausedCh()) != paused {
			t.Fatalf("%s: pausedCh closed = %v with paused %v", step, !paused, paused)
		}
	}
	check("zero", false)
	running := g.pausedCh()
	g.Pause(true)
	check("pause", true)
	if !isClosed(running) {
		t.Fatal("a pausedCh taken while running is not closed by Pause(true)")
	}
	waiting := g.resumed()
	g.Pause(true)
	check("pause again", true)
	if isClosed(waiting) {
		t.Fatal("a second Pause(true) resumed")
	}
	g.Pause(false)
	check("resume", false)
	if !isClosed(waiting) {
		t.Fatal("a resumed taken while paused is not closed by Pause(false)")
	}
	g.Pause(false)
	check("resume again", false)
}

// waitRunning blocks while paused: it returns only once resumed (true) or
// stopped (false).
func TestWaitRunningBlocksUntilResumeOrStop(t *testing.T) {
	for _, stop := range []bool{false, true} {
		var b base
		b.begin()
		b.Pause(true)
		got := make(chan bool)
		go func() { got <- b.waitRunning() }()
		select {
		case <-got:
			t.Fatal("waitRunning returned while paused")
		default:
		}
		if stop {
			b.halt(nil)
		} else {
			b.Pause(false)
		}
		if r := <-got; r == stop {
			t.Fatalf("stop %v: waitRunning = %v", stop, r)
		}
		b.halt(nil)
	}
}

// A paused every calls nothing, even over many periods, runs resumed
// once on resume, then ticks again; Stop ends it while paused.
func TestEveryIsSilentWhilePaused(t *testing.T) {
	var b base
	b.begin()
	b.Pause(true) // before the loop starts: --no-load
	var ticks, resumes atomic.Int64
	tick := make(chan struct{}, 1)
	b.goSafe(func() {
		b.every(time.Millisecond, func() { resumes.Add(1) }, func() {
			ticks.Add(1)
			select {
			case tick <- struct{}{}:
			default:
			}
		})
	})
	// Paused from the start: there is no timer to fire. Whatever the
	// scheduler does meanwhile, no tick can happen until Pause(false).
	// The sleep is no timing claim: it lets the loop reach its wait on
	// the gate (20 periods: a polling loop would tick here), so that it
	// sees the pause and runs resumed.
	time.Sleep(20 * time.Millisecond)
	if n := ticks.Load(); n != 0 {
		t.Fatalf("%d ticks while paused", n)
	}
	b.Pause(false)
	<-tick
	if resumes.Load() != 1 {
		t.Fatalf("resumed ran %d times, want 1", resumes.Load())
	}
	b.Pause(true)
	b.halt(nil) // ends it while paused
}

// halt runs its cleanup once, after the goroutines, and is safe without
// a Start.
func TestHaltOnce(t *testing.T) {
	var b base
	b.halt(nil) // never started: no panic
	var c base
	c.begin()
	var order []string
	c.goSafe(func() { <-c.done(); order = append(order, "driver") })
	c.halt(func() { order = append(order, "cleanup") })
	c.halt(func() { order = append(order, "again") })
	if len(order) != 2 || order[0] != "driver" || order[1] != "cleanup" {
		t.Fatalf("order %v, want [driver cleanup]", order)
	}
}

// TestFibUntilGivesUp: fibUntil answers as fib does while its channels
// are open, and gives up a fib(50) (minutes of work) once one closes
// mid-run: a handler's fib ends when its client goes or the scenario stops.
func TestFibUntilGivesUp(t *testing.T) {
	open := make(chan struct{})
	for _, n := range []int{0, 1, 2, fibCheckN, fibCheckN + 1, fastN} {
		if v, ok := fibUntil(n, open, open); !ok || v != fib(n) {
			t.Errorf("fibUntil(%d) = %d, %v, want %d, true", n, v, ok, fib(n))
		}
	}
	for _, which := range []string{"the first", "the second"} {
		stop := make(chan struct{})
		a, b := stop, open
		if which == "the second" {
			a, b = open, stop
		}
		gaveUp := make(chan bool, 1)
		go func() { _, ok := fibUntil(50, a, b); gaveUp <- !ok }()
		close(stop)
		if !testkit.Recv(t, "fib(50)'s end after "+which+" channel closed", 0, gaveUp) {
			t.Errorf("fib(50) finished with %s channel closed", which)
		}
	}
}
