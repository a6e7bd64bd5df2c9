package main

import (
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/offtop/offtop/internal/crash"
)

// hangup tells when the dashboard's terminal has gone away: its fd hung
// up (poll reports POLLHUP or POLLERR: the pty's master closed, the
// terminal emulator or the ssh session gone) or a write to it failed. The
// kernel sends SIGHUP for a hang-up to the session leader only, so
// under a shell or a parent that ignores it offtop would get none and run
// on; the run ends on Gone as on SIGHUP. Safe for concurrent use.
type hangup struct {
	once sync.Once
	gone chan struct{}
	wake int // write end of the pipe that ends the watcher; -1 none
}

// newHangup is a hangup with no watcher: only hungUp closes Gone.
func newHangup() *hangup { return &hangup{gone: make(chan struct{}), wake: -1} }

// watchHangup starts watching fd (the terminal); stop ends the watcher.
// A watcher that cannot start (no pipe) leaves only failed writes to
// tell.
func watchHangup(fd int) *hangup {
	h := newHangup()
	var p [2]int
	if unix.Pipe2(p[:], unix.O_CLOEXEC) != nil {
		return h
	}
	h.wake = p[1]
	crash.Go(func() {
		defer unix.Close(p[0])
		fds := []unix.PollFd{{Fd: int32(fd)}, {Fd: int32(p[0]), Events: unix.POLLIN}} // fd: no events asked, hang-ups and errors come anyway
		for {
			_, err := unix.Poll(fds, -1)
			switch {
			case err == unix.EINTR:
				continue
			case err != nil, fds[1].Revents != 0:
				return
			case fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0:
				h.hungUp()
				return
			}
		}
	})
	return h
}

// hungUp says the terminal is gone (a failed write, or the watcher).
func (h *hangup) hungUp() { h.once.Do(func() { close(h.gone) }) }

// Gone is closed once the terminal is gone.
func (h *hangup) Gone() <-chan struct{} { return h.gone }

// isGone reports whether the terminal is gone.
func (h *hangup) isGone() bool {
	select {
	case <-h.gone:
		return true
	default:
		return false
	}
}

// stop ends the watcher (it closes its end of the pipe itself).
func (h *hangup) stop() {
	if h.wake >= 0 {
		unix.Close(h.wake)
		h.wake = -1
	}
}

// watchTerminal watches the first of files (stdin, stdout, stderr) that
// is a terminal, as watchHangup does; with none, a hangup no watcher
// closes. The caller stops it.
func watchTerminal(files ...any) *hangup {
	for _, f := range files {
		if w, ok := f.(*os.File); ok && w != nil && isTerminal(w) {
			return watchHangup(int(w.Fd()))
		}
	}
	return newHangup()
}

// failWriter is w whose failed writes say the terminal is gone.
type failWriter struct {
	w   io.Writer
	hup *hangup
}

func (f failWriter) Write(b []byte) (int, error) {
	n, err := f.w.Write(b)
	if err != nil {
		f.hup.hungUp()
	}
	return n, err
}
