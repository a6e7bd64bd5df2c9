// Package testkit holds what offtop's tests share: waiting for an event
// (WaitFor, Poll, Await, Recv), a fake clock (Clock, StepUntil) and a
// private tmux server that drives a binary in a pane (Tmux).
//
// A limit here bounds a wait for something that will happen; it is never a
// timing assertion, so it is generous (Patience) and a busy machine only
// makes a test slower, not red.
package testkit

import (
	"testing"
	"time"
)

// Patience is the limit a wait uses when it is given 0.
const Patience = 20 * time.Second

// pollGap is the first gap between two polls; it doubles to maxPollGap,
// so a condition that holds soon is seen soon and a slow one is not read
// a thousand times a second.
const (
	pollGap    = 100 * time.Microsecond
	maxPollGap = 20 * time.Millisecond
)

func limitOr(limit time.Duration) time.Duration {
	if limit <= 0 {
		return Patience
	}
	return limit
}

// Poll calls get until ok holds for what it returns, and returns that
// value. After limit (Patience when 0) it fails t, showing what and the
// last value.
func Poll[T any](t testing.TB, what string, limit time.Duration, get func() T, ok func(T) bool) T {
	t.Helper()
	limit = limitOr(limit)
	deadline := time.Now().Add(limit)
	gap := pollGap
	for {
		v := get()
		if ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v, still no %s; last:\n%v", limit, what, v)
			return v
		}
		time.Sleep(gap)
		gap = min(2*gap, maxPollGap)
	}
}

// WaitFor polls cond until it holds; after limit (Patience when 0) it
// fails t, naming what it waited for.
func WaitFor(t testing.TB, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	limit = limitOr(limit)
	deadline := time.Now().Add(limit)
	gap := pollGap
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v, still no %s", limit, what)
			return
		}
		time.Sleep(gap)
		gap = min(2*gap, maxPollGap)
	}
}

// Recv receives one value from ch (the zero value when ch is closed);
// after limit (Patience when 0) it fails t.
func Recv[T any](t testing.TB, what string, limit time.Duration, ch <-chan T) T {
	t.Helper()
	timer := time.NewTimer(limitOr(limit))
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("after %v, no %s", limitOr(limit), what)
	}
	var zero T
	return zero
}

// Await receives from ch until ok holds for a value, and returns it.
// After limit (Patience when 0), or when ch is closed, it fails t.
func Await[T any](t testing.TB, what string, limit time.Duration, ch <-chan T, ok func(T) bool) T {
	t.Helper()
	timer := time.NewTimer(limitOr(limit))
	defer timer.Stop()
	for {
		select {
		case v, open := <-ch:
			if !open {
				t.Fatalf("%s: the channel closed first", what)
				return v
			}
			if ok(v) {
				return v
			}
		case <-timer.C:
			var zero T
			t.Fatalf("after %v, no %s", limitOr(limit), what)
			return zero
		}
	}
}
