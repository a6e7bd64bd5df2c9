package testkit

import (
	"fmt"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/clock"
)

// Start is the time a clock from NewClock reads first.
var Start = time.Unix(1_000_000, 0)

// NewClock is a fake clock reading Start.
func NewClock() *clock.Fake { return clock.NewFake(Start) }

// Moved is how far clk has moved since Start.
func Moved(clk *clock.Fake) time.Duration { return clk.Now().Sub(Start) }

// WaitWaiters waits until n Afters wait on clk: the code under test has
// reached its wait, so an Advance now wakes it. It fails t after
// Patience.
func WaitWaiters(t testing.TB, clk *clock.Fake, n int) {
	t.Helper()
	WaitFor(t, fmt.Sprintf("%d waiter(s) on the fake clock", n), 0, func() bool { return clk.Waiters() == n })
}

// StepUntil moves clk from one waiter's due time to the next (Step) until
// cond holds. It fails t when no waiter comes within Patience, or when
// cond does not hold after Patience in all.
func StepUntil(t testing.TB, clk *clock.Fake, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v of stepping the fake clock (%v moved), still no %s", Patience, Moved(clk), what)
			return
		}
		if _, ok := clk.Step(Patience); !ok {
			if cond() {
				return
			}
			t.Fatalf("nothing waits on the fake clock, and no %s", what)
			return
		}
	}
}
