package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/offtop/offtop/internal/crash"
)

// reportURL is where a panic should be reported.
const reportURL = "https://github.com/offtop/offtop/issues"

// crashGrace is how long a run has, after a panic, to stop and restore the
// terminal on its own before the crasher restores it and exits anyway.
const crashGrace = 3 * time.Second

// crasher is the crash handler of one run. A panic recovered anywhere
// (crash.Go, crash.Recover, the UI's wrappers) asks the run to stop (the
// TUI: Program.Kill, which restores the terminal); the run then sees
// crashed closed, skips the session's Close (a panicked session may never
// close) and returns; run prints one line and exits 1. If that takes more
// than crashGrace, the crasher restores the terminal itself (the termios
// saved before the TUI started, and the escape sequences that leave the
// alternate screen) and exits 1.
type crasher struct {
	stderr  io.Writer
	once    sync.Once
	report  crash.Report
	crashed chan struct{} // closed at the first panic; report is set before

	stop    atomic.Pointer[func()] // asks the run to stop
	restore atomic.Pointer[func()] // restores the terminal by hand; nil when not in the TUI

	printOnce sync.Once
	exit      func(int) // os.Exit
}

func newCrasher(stderr io.Writer) *crasher {
	return &crasher{stderr: stderr, crashed: make(chan struct{}), exit: os.Exit}
}

// handle is the crash handler: the first panic wins; later ones (a panic
// as the program comes down) are dropped.
func (c *crasher) handle(r crash.Report) {
	c.once.Do(func() {
		c.report = r
		close(c.crashed)
		if stop := c.stop.Load(); stop != nil {
			go (*stop)() // never on the panicking goroutine: it may be the UI's event loop
		}
		time.AfterFunc(crashGrace, func() {
			c.restoreTerminal()
			c.exit(c.fail())
		})
	})
}

// isCrashed reports whether a panic has been handled.
func (c *crasher) isCrashed() bool {
	select {
	case <-c.crashed:
		return true
	default:
		return false
	}
}

func (c *crasher) setStop(f func()) {
	if f == nil {
		c.stop.Store(nil)
		return
	}
	c.stop.Store(&f)
}

func (c *crasher) setRestore(f func()) {
	if f == nil {
		c.restore.Store(nil)
		return
	}
	c.restore.Store(&f)
}

func (c *crasher) restoreTerminal() {
	if f := c.restore.Load(); f != nil {
		(*f)()
	}
}

// fail prints the panic on one line, once, with where to report it, and
// returns the exit code. The stack goes to a file named in that line.
func (c *crasher) fail() int {
	c.printOnce.Do(func() {
		where := ""
		if f, err := os.CreateTemp("", "offtop-panic-*.txt"); err == nil {
			fmt.Fprintf(f, "offtop %s\n%s\n\n%s", version, c.report.Error(), c.report.Stack)
			if f.Close() == nil {
				where = " with the stack saved in " + f.Name()
			}
		}
		fmt.Fprintf(c.stderr, "offtop: %s; please report it at %s%s\n", c.report.Error(), reportURL, where)
	})
	return exitError
}
