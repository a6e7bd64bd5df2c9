package cpuclock

import (
	"runtime"
	"testing"
	"time"
)

// The clock id trick reads the same clock as CLOCK_THREAD_CPUTIME_ID, and
// no other process's.
func TestThreadMatchesSelf(t *testing.T) {
	if !Known {
		t.Skip("no thread CPU clock on this OS")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := Tid()
	cpu0, ok0 := Self()
	for i := 0; i < 1e6; i++ { // burn a little CPU
		sink += uint64(i * i)
	}
	a, ok1 := Self()
	b, ok2 := Thread(tid)
	c, ok3 := Self()
	if !ok0 || !ok1 || !ok2 || !ok3 {
		t.Fatal("clock read failed")
	}
	if !(a <= b && b <= c) || b <= cpu0 {
		t.Fatalf("self %v, by tid %v, self %v, start %v: not in order", a, b, c, cpu0)
	}
	// The kernel refuses thread clocks of other processes (and of ids that
	// are no thread at all): a stale tid can never read a stranger.
	if _, ok := Thread(1); ok {
		t.Fatal("read the CPU clock of pid 1 from this process")
	}
}

// Measure counts CPU time, not wall time: a sleep inside costs next to
// nothing, a burn costs about its length.
func TestMeasureCountsCPUNotWall(t *testing.T) {
	if !Known {
		t.Skip("no thread CPU clock on this OS")
	}
	slept, ok := Measure(func() { time.Sleep(50 * time.Millisecond) })
	if !ok || slept > 25*time.Millisecond {
		t.Fatalf("a 50ms sleep measured %v (ok %v), want well under 25ms", slept, ok)
	}
	burned, ok := Measure(func() {
		c0, _ := Self()
		for c, _ := Self(); c-c0 < 20*time.Millisecond; c, _ = Self() {
			sink++
		}
	})
	if !ok || burned < 20*time.Millisecond {
		t.Fatalf("a 20ms burn measured %v (ok %v)", burned, ok)
	}
}

var sink uint64
