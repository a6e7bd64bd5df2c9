package jobctl

import (
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/offtop/offtop/internal/crash"
)

// Hangup tells when the dashboard's terminal has gone away: its fd hung
// up (poll reports POLLHUP or POLLERR: the pty's master closed, the
// terminal emulator or the ssh session gone) or a write to it failed. The
// kernel sends SIGHUP for a hang-up to the session leader only, so
// under a shell or a parent that ignores it offtop would get none and run
// on; the run ends on Gone as on SIGHUP. Safe for concurrent use.
type Hangup struct {
	once sync.Once
	gone chan struct{}
	wake int // write end of the pipe that ends the watcher; -1 none
}

// NoWatch is a Hangup with no watcher: only HungUp closes Gone.
func NoWatch() *Hangup { return &Hangup{gone: make(chan struct{}), wake: -1} }

// Watch starts watching fd (the terminal); Stop ends the watcher.
// A watcher that cannot start (no pipe) leaves only failed writes to
// tell.
func Watch(fd int) *Hangup {
	h := NoWatch()
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
				h.HungUp()
				return
			}
		}
	})
	return h
}

// HungUp says the terminal is gone (a failed write, or the watcher).
func (h *Hangup) HungUp() { h.once.Do(func() { close(h.gone) }) }

// Gone is closed once the terminal is gone.
func (h *Hangup) Gone() <-chan struct{} { return h.gone }

// IsGone reports whether the terminal is gone.
func (h *Hangup) IsGone() bool {
	select {
	case <-h.gone:
		return true
	default:
		return false
	}
}

// Stop ends the watcher (it closes its end of the pipe itself).
func (h *Hangup) Stop() {
	if h.wake >= 0 {
		unix.Close(h.wake)
		h.wake = -1
	}
}

// WatchTerminal watches the first of files (stdin, stdout, stderr) that
// is a terminal, as Watch does; with none, a Hangup no watcher
// closes. The caller stops it.
func WatchTerminal(files ...any) *Hangup {
	for _, f := range files {
		if w, ok := f.(*os.File); ok && w != nil && IsTerminal(w) {
			return Watch(int(w.Fd()))
		}
	}
	return NoWatch()
}

// FailWriter is W whose failed writes say the terminal is gone (Hup).
type FailWriter struct {
	W   io.Writer
	Hup *Hangup
}

func (f FailWriter) Write(b []byte) (int, error) {
	n, err := f.W.Write(b)
	if err != nil {
		f.Hup.HungUp()
	}
	return n, err
}
