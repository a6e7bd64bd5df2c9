package scenarios

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// onCPU runs fn locked to its OS thread and returns the thread CPU time it
// took (CLOCK_THREAD_CPUTIME_ID), and true.
func onCPU(fn func()) (time.Duration, bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var a, b unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &a) != nil {
		fn()
		return 0, false
	}
	fn()
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &b) != nil {
		return 0, false
	}
	return time.Duration(b.Nano() - a.Nano()), true
}
