package crash

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// ReportURL is where a panic should be reported.
const ReportURL = "https://github.com/offtop/offtop/issues"

// crashGrace is how long a run has, after a panic, to stop and restore the
// terminal on its own before the crasher restores it and exits anyway.
const crashGrace = 3 * time.Second

// Handler is the crash handler of one run of a command. A panic
// recovered anywhere (Go, Recover, the UI's wrappers) asks the run to
// stop (SetStop: a dashboard's Kill, which restores the terminal); the
// run then sees Crashed closed, skips what may never finish (a panicked
// session's Close) and returns; the command prints one line (Fail) and
// exits 1. If that takes more than crashGrace, the handler restores the
// terminal itself (SetRestore) and exits 1.
type Handler struct {
	Stderr  io.Writer
	version string // the command's, in the stack file
	once    sync.Once
	report  Report
	crashed chan struct{} // closed at the first panic; report is set before

	stop    atomic.Pointer[func()] // asks the run to stop
	restore atomic.Pointer[func()] // restores the terminal by hand; nil when not in the TUI

	printOnce sync.Once
	// Exit ends the process (os.Exit).
	Exit func(int)
}

// NewHandler is the handler of a run of a command at version that says
// a panic on stderr.
func NewHandler(stderr io.Writer, version string) *Handler {
	return &Handler{Stderr: stderr, version: version, crashed: make(chan struct{}), Exit: os.Exit}
}

// Crashed is closed at the first panic.
func (c *Handler) Crashed() <-chan struct{} { return c.crashed }

// Handle is the crash handler (SetHandler): the first panic wins; later ones (a panic
// as the program comes down) are dropped.
func (c *Handler) Handle(r Report) {
	c.once.Do(func() {
		c.report = r
		close(c.crashed)
		if stop := c.stop.Load(); stop != nil {
			go (*stop)() // never on the panicking goroutine: it may be the UI's event loop
		}
		time.AfterFunc(crashGrace, func() {
			c.RestoreTerminal()
			c.Exit(c.Fail())
		})
	})
}

// IsCrashed reports whether a panic has been handled.
func (c *Handler) IsCrashed() bool {
	select {
	case <-c.crashed:
		return true
	default:
		return false
	}
}

// SetStop sets how a panic asks the run to stop (nil: nothing).
func (c *Handler) SetStop(f func()) {
	if f == nil {
		c.stop.Store(nil)
		return
	}
	c.stop.Store(&f)
}

// SetRestore sets how the terminal is restored by hand (nil: nothing).
func (c *Handler) SetRestore(f func()) {
	if f == nil {
		c.restore.Store(nil)
		return
	}
	c.restore.Store(&f)
}

// RestoreTerminal restores the terminal by hand, as SetRestore said.
func (c *Handler) RestoreTerminal() {
	if f := c.restore.Load(); f != nil {
		(*f)()
	}
}

// Fail prints the panic on one line, once, with where to report it, and
// returns the exit code, 1. The stack goes to a file named in that line.
func (c *Handler) Fail() int {
	c.printOnce.Do(func() {
		where := ""
		if f, err := os.CreateTemp("", "offtop-panic-*.txt"); err == nil {
			fmt.Fprintf(f, "offtop %s\n%s\n\n%s", c.version, c.report.Error(), c.report.Stack)
			if f.Close() == nil {
				where = " with the stack saved in " + f.Name()
			}
		}
		fmt.Fprintf(c.Stderr, "offtop: %s; please report it at %s%s\n", c.report.Error(), ReportURL, where)
	})
	return 1
}
