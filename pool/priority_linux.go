//go:build linux

package pool

import "golang.org/x/sys/unix"

const priorityKnown = true

// lowerThread lowers the calling thread's priority (lowerMode) and
// returns its id; false when the kernel refused.
func lowerThread() (tid int, ok bool) {
	tid = unix.Gettid()
	switch lowerMode {
	case lowerIdle:
		a := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}
		return tid, unix.SchedSetAttr(tid, &a, 0) == nil
	case lowerNone:
		return tid, true
	}
	return tid, unix.Setpriority(unix.PRIO_PROCESS, tid, 19) == nil
}
