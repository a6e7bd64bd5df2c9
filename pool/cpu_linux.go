//go:build linux

package pool

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

const onCPUSupported = true

// measureCPU runs fn locked to its OS thread and returns the thread CPU
// time it took; false where a clock read failed.
func measureCPU(fn func()) (time.Duration, bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var a, b unix.Timespec
	okA := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &a) == nil
	fn()
	if !okA || unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &b) != nil {
		return 0, false
	}
	return time.Duration(b.Nano() - a.Nano()), true
}
