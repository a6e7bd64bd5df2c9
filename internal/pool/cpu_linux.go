//go:build linux

package pool

import (
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// onCPUKnown reports whether this OS gives per-thread CPU clocks.
const onCPUKnown = true

// threadLock is a worker goroutine's hold on its OS thread. It is owned by
// that goroutine and never shared.
type threadLock struct {
	locked bool
	tid    int    // the thread's id while locked
	run    uint64 // the runAcct run this goroutine began (see beginRun)
}

// acquire locks the goroutine to its OS thread and reads the thread id.
func (l *threadLock) acquire() {
	runtime.LockOSThread()
	l.locked, l.tid = true, unix.Gettid()
}

// release undoes acquire. Workers call it before waiting for work and
// before their goroutine ends (a goroutine that ends locked takes its
// thread with it).
func (l *threadLock) release() {
	runtime.UnlockOSThread()
	l.locked, l.tid = false, 0
}

// clockNs reads clock id. clock_gettime never blocks, so it is a raw
// syscall: unix.ClockGettime's entersyscall/exitsyscall pair costs as much
// as the call on a VM with slow syscalls. (The vDSO does not serve CPU-time
// clocks; the kernel does.)
func clockNs(id int32) (time.Duration, bool) {
	var ts unix.Timespec
	_, _, e := unix.RawSyscall(unix.SYS_CLOCK_GETTIME, uintptr(id), uintptr(unsafe.Pointer(&ts)), 0)
	if e != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// selfCPU reads the calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID).
func selfCPU() (time.Duration, bool) { return clockNs(unix.CLOCK_THREAD_CPUTIME_ID) }

// threadClock returns the clock id of thread tid's CPU clock: the kernel's
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) = (~tid << 3) | CPUCLOCK_SCHED (2)
// | CPUCLOCK_PERTHREAD_MASK (4). Any thread of this process may read it.
func threadClock(tid int) int32 { return (^int32(tid))<<3 | 6 }

// threadCPU reads thread tid's CPU clock from another thread. The caller
// must make sure the task is still on tid (worker.mu held, inTask set): a
// thread the task left runs other goroutines, or may exit and its id be
// reused.
func threadCPU(tid int) (time.Duration, bool) { return clockNs(threadClock(tid)) }
