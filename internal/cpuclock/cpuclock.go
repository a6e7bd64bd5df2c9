// Package cpuclock reads per-thread CPU clocks: the calling thread's
// (CLOCK_THREAD_CPUTIME_ID) and, by thread id, any other thread's of this
// process (the kernel's clock id (^tid<<3)|6). offtop's one way to read
// them: the pool's per-worker on-CPU time and the scenarios' CPU time per
// task both come from here.
//
// On Linux every read is a real system call (the vDSO serves no CPU-time
// clock): ~170 ns on the machine BENCHMARKS.md was made on, ~1.2 us on a
// VM with slow syscalls. Reads are raw syscalls (clock_gettime never
// blocks, so the runtime's entersyscall/exitsyscall pair would only add to
// the cost). Elsewhere Known is false and every read reports false.
//
// A goroutine's CPU time is its thread's only while it is locked to that
// thread (runtime.LockOSThread): Measure does that around fn.
package cpuclock

import (
	"runtime"
	"time"
)

// Measure runs fn locked to its OS thread and returns the thread CPU time
// it took, and true; false (after running fn) where there is no thread
// clock or a read failed.
func Measure(fn func()) (time.Duration, bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ok := Self()
	fn()
	if !ok {
		return 0, false
	}
	b, ok := Self()
	if !ok {
		return 0, false
	}
	return b - a, true
}
