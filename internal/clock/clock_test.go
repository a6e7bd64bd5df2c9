package clock

import (
	"testing"
	"time"
)

func fired(c <-chan time.Time) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestFakeFiresInOrderWhenDue: a waiter fires once the clock has moved
// its d, not before, and receives the fake time.
func TestFakeFiresInOrderWhenDue(t *testing.T) {
	t0 := time.Unix(1000, 0)
	f := NewFake(t0)
	a, b := f.After(2*time.Second), f.After(time.Second)
	if fired(a) || fired(b) || f.Waiters() != 2 {
		t.Fatal("fired before the clock moved")
	}
	f.Advance(999 * time.Millisecond)
	if fired(a) || fired(b) {
		t.Fatal("fired early")
	}
	f.Advance(time.Millisecond)
	if fired(a) {
		t.Error("the 2s waiter fired at 1s")
	}
	select {
	case got := <-b:
		if !got.Equal(t0.Add(time.Second)) {
			t.Errorf("fired with %v", got)
		}
	default:
		t.Fatal("the 1s waiter did not fire at 1s")
	}
	if !fired(f.After(0)) || !fired(f.After(-time.Second)) {
		t.Error("After(<=0) did not fire at once")
	}
	if got := Since(f, t0); got != time.Second {
		t.Errorf("Since = %v", got)
	}
}

// TestFakeStepJumpsToTheNextWaiter: Step moves to the earliest due time
// only, waits for a waiter when there is none, and gives up after timeout.
func TestFakeStepJumpsToTheNextWaiter(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	late, early := f.After(5*time.Second), f.After(3*time.Second)
	if d, ok := f.Step(time.Second); !ok || d != 3*time.Second || !fired(early) || fired(late) {
		t.Fatalf("Step = %v, %v", d, ok)
	}
	if _, ok := f.Step(10 * time.Millisecond); !ok || !fired(late) {
		t.Fatal("second Step")
	}
	if _, ok := f.Step(10 * time.Millisecond); ok {
		t.Fatal("Step with no waiter returned true")
	}
	got := make(chan time.Duration)
	go func() { d, _ := f.Step(10 * time.Second); got <- d }()
	c := f.After(time.Minute) // the blocked Step wakes on it
	if d := <-got; d != time.Minute || !fired(c) {
		t.Errorf("Step moved %v", d)
	}
	if Or(nil) != Real || Or(f) != Clock(f) {
		t.Error("Or")
	}
}
