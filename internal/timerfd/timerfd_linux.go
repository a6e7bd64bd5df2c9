//go:build linux

package timerfd

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Timer is a one-shot Linux timerfd read through the runtime's network
// poller: a goroutine waiting on it is parked as for any socket, with no
// thread blocked, and the poller's epoll_wait returns when the kernel timer
// fires, not up to a millisecond later as a runtime timer's may
// (runtime/netpoll_epoll.go waits whole ms; measured: docs/internals.md).
//
// Arming and reading use RawSyscall: both are non-blocking (the fd is
// O_NONBLOCK), and a plain Syscall would tell the scheduler about a system
// call, which wakes sysmon from its idle sleep on every sample (its cost:
// docs/internals.md).
//
// Not safe for concurrent use, except Close, which may be called at any time
// and more than once.
type Timer struct {
	f     *os.File
	rc    syscall.RawConn
	spec  unix.ItimerSpec
	buf   [8]byte // expiration count read from the fd
	errno syscall.Errno
	arm   func(fd uintptr)      // bound once: sleep allocates nothing
	read  func(fd uintptr) bool //
}

// New makes a Timer; on a system without timerfd it returns
// errors.ErrUnsupported.
func New() (*Timer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("timerfd_create", err)
	}
	t := &Timer{f: os.NewFile(uintptr(fd), "timerfd")}
	if t.rc, err = t.f.SyscallConn(); err != nil {
		t.f.Close()
		return nil, err
	}
	t.arm = func(fd uintptr) {
		_, _, t.errno = unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, fd, 0,
			uintptr(unsafe.Pointer(&t.spec)), 0, 0, 0)
	}
	t.read = func(fd uintptr) bool {
		_, _, t.errno = unix.RawSyscall(unix.SYS_READ, fd,
			uintptr(unsafe.Pointer(&t.buf[0])), uintptr(len(t.buf)))
		return t.errno != unix.EAGAIN
	}
	return t, nil
}

// Sleep arms the timer to fire in d (at least 1 ns, relative, so it never
// fires before the caller's due time) and waits until it has fired. It
// returns an error if the Timer was closed (before or during the wait) or a
// system call failed.
func (t *Timer) Sleep(d time.Duration) error {
	t.spec = unix.ItimerSpec{Value: unix.NsecToTimespec(int64(max(d, 1)))}
	if err := t.rc.Control(t.arm); err != nil {
		return err
	}
	if t.errno != 0 {
		return os.NewSyscallError("timerfd_settime", t.errno)
	}
	if err := t.rc.Read(t.read); err != nil {
		return err
	}
	if t.errno != 0 {
		return os.NewSyscallError("read timerfd", t.errno)
	}
	return nil
}

// Close closes the fd; a Sleep in progress returns an error.
func (t *Timer) Close() { t.f.Close() }
