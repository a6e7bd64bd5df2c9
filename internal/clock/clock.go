// Package clock is the time source the session and the scenarios read
// for their schedules (when a sample, a meter tick, a search step is due)
// and for the time those schedules measure (a sample's Elapsed, a size
// row's held time, a rate's denominator). Real is the wall clock; a test
// passes a *Fake and moves it with Advance, so a schedule of seconds runs
// in as long as the work it drives takes, with no sleep.
//
// The clock is not for timing work: how long a task, a request or the
// Loop's lateness took is real time, read with time.Now, always.
package clock

import (
	"sort"
	"sync"
	"time"
)

// Clock tells the time and wakes a waiter. Implementations are safe for
// concurrent use.
type Clock interface {
	// Now is the current time.
	Now() time.Time
	// After returns a channel that receives the time once d (<= 0: at
	// once) has passed on this clock. The channel has a buffer of one, so
	// a waiter that gave up leaks nothing.
	After(d time.Duration) <-chan time.Time
}

// Real is the wall clock: time.Now and time.After.
var Real Clock = realClock{}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Or returns c, or Real when c is nil.
func Or(c Clock) Clock {
	if c == nil {
		return Real
	}
	return c
}

// Since is c.Now().Sub(t).
func Since(c Clock, t time.Time) time.Duration { return c.Now().Sub(t) }

// Fake is a clock that moves only when told (Advance, Step). Its zero
// value is not usable: NewFake. It is safe for concurrent use.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	added   chan struct{} // closed and replaced each time a waiter is added
}

type waiter struct {
	at time.Time
	c  chan time.Time
}

// NewFake returns a fake clock reading start.
func NewFake(start time.Time) *Fake { return &Fake{now: start, added: make(chan struct{})} }

// Now is the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// After returns a channel that receives the fake time once the clock has
// been moved d past now (at once for d <= 0).
func (f *Fake) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := make(chan time.Time, 1)
	if d <= 0 {
		c <- f.now
		return c
	}
	f.waiters = append(f.waiters, waiter{at: f.now.Add(d), c: c})
	close(f.added)
	f.added = make(chan struct{})
	return c
}

// Advance moves the clock d forward and wakes, in order of their due
// times, every waiter due by then.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.moveTo(f.now.Add(d))
}

// moveTo sets the time to t (never back) and fires the waiters due by t.
func (f *Fake) moveTo(t time.Time) {
	if t.After(f.now) {
		f.now = t
	}
	sort.SliceStable(f.waiters, func(i, j int) bool { return f.waiters[i].at.Before(f.waiters[j].at) })
	n := 0
	for _, w := range f.waiters {
		if w.at.After(f.now) {
			break
		}
		w.c <- f.now
		n++
	}
	f.waiters = append(f.waiters[:0], f.waiters[n:]...)
}

// Waiters is how many After channels wait for the clock to move.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}

// Earliest is how far ahead of now the earliest waiter is due; false
// with no waiter.
func (f *Fake) Earliest() (time.Duration, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	at, ok := f.earliestLocked()
	return at.Sub(f.now), ok
}

// earliestLocked is the earliest waiter's due time; false with none.
// Callers hold mu.
func (f *Fake) earliestLocked() (time.Time, bool) {
	if len(f.waiters) == 0 {
		return time.Time{}, false
	}
	at := f.waiters[0].at
	for _, w := range f.waiters[1:] {
		if w.at.Before(at) {
			at = w.at
		}
	}
	return at, true
}

// Step moves the clock to the earliest due time among the waiters and
// wakes those due then, and returns how far it moved. With no waiter it
// waits (in real time) for one, up to timeout; it returns false when none
// came.
func (f *Fake) Step(timeout time.Duration) (time.Duration, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		f.mu.Lock()
		if at, ok := f.earliestLocked(); ok {
			moved := max(at.Sub(f.now), 0)
			f.moveTo(at)
			f.mu.Unlock()
			return moved, true
		}
		added := f.added
		f.mu.Unlock()
		select {
		case <-added:
		case <-deadline.C:
			return 0, false
		}
	}
}
