package runq

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestMeasureReadsProc: the run delay is readable, never goes back across
// a spin, and a Reading names what it measured.
func TestMeasureReadsProc(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ok := threadRunDelay()
	if !ok {
		t.Skip("no /proc/thread-self/schedstat here")
	}
	r, ok := Measure(50 * time.Millisecond)
	b, _ := threadRunDelay()
	if !ok {
		t.Fatal("Measure: not ok where threadRunDelay is")
	}
	if b < a {
		t.Fatalf("run delay went back: %v then %v", a, b)
	}
	if r.Threads != runtime.NumCPU() || r.Wall < 50*time.Millisecond || r.RunDelay < 0 {
		t.Fatalf("reading %+v: want %d threads, wall >= 50ms, run delay >= 0", r, runtime.NumCPU())
	}
	if s := r.String(); !strings.Contains(s, "run delay") || !strings.Contains(s, "spinning threads") {
		t.Fatalf("String %q does not say what was measured", s)
	}
}

// TestMeasureSeesSpinnersBeside: with two spinning threads of our own per
// CPU beside it, each measuring thread gets at most a third of a CPU from
// a fair scheduler, so it waits about two thirds of the time; the reading
// must say busy (over 10%) however quiet the machine is otherwise.
func TestMeasureSeesSpinnersBeside(t *testing.T) {
	if _, ok := threadRunDelay(); !ok {
		t.Skip("no /proc/thread-self/schedstat here")
	}
	var stop atomic.Bool
	done := make(chan struct{})
	n := 2 * runtime.NumCPU()
	prev := runtime.GOMAXPROCS(3 * runtime.NumCPU()) // room for the spinners and the measuring threads
	defer runtime.GOMAXPROCS(prev)
	for range n {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for !stop.Load() {
			}
			done <- struct{}{}
		}()
	}
	r, _ := Measure(300 * time.Millisecond)
	stop.Store(true)
	for range n {
		<-done
	}
	if !r.Busy() {
		t.Fatalf("%d spinners beside the measure, read %s: want busy (> %.0f%%)", n, r, 100*MaxRunDelay)
	}
}
