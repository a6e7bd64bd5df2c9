//go:build linux

package cpuclock

import (
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Known reports whether this OS gives per-thread CPU clocks.
const Known = true

// Self reads the calling thread's CPU clock: the CPU time the thread has
// used since it started. false when the read failed.
func Self() (time.Duration, bool) { return read(unix.CLOCK_THREAD_CPUTIME_ID) }

// Thread reads the CPU clock of thread tid of this process (from any
// thread). false when tid is no thread of this process (the kernel refuses
// other processes' thread clocks), or the read failed. The caller must
// know what runs on tid: a thread's clock counts whatever goroutines it ran.
func Thread(tid int) (time.Duration, bool) { return read(ClockID(tid)) }

// ClockID is the clock id of thread tid's CPU clock: the kernel's
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) = (~tid << 3) | CPUCLOCK_SCHED
// (2) | CPUCLOCK_PERTHREAD_MASK (4).
func ClockID(tid int) int32 { return (^int32(tid))<<3 | 6 }

// Tid returns the calling thread's id (gettid, a raw syscall).
func Tid() int {
	tid, _, _ := unix.RawSyscall(unix.SYS_GETTID, 0, 0, 0)
	return int(tid)
}

func read(id int32) (time.Duration, bool) {
	var ts unix.Timespec
	_, _, e := unix.RawSyscall(unix.SYS_CLOCK_GETTIME, uintptr(id), uintptr(unsafe.Pointer(&ts)), 0)
	if e != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
