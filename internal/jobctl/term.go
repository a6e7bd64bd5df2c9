// Package jobctl is a dashboard's terminal job control: suspending on
// ctrl+z or SIGTSTP and taking the terminal back on SIGCONT (Suspender),
// telling when the terminal hangs up (Hangup), and putting the terminal
// back by hand when the program cannot (Restorer).
package jobctl

import (
	"io"
	"os"
	"syscall"

	"github.com/charmbracelet/x/term"
)

// StopSignals are the signals that end a run, the terminal restored.
var StopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && f != nil && term.IsTerminal(f.Fd())
}

// Restorer returns a function that puts the terminal on stdin back as it
// is now and leaves the alternate screen on out, for when the program
// cannot (a crash handler's last resort, a second signal). It returns
// nil when stdin is not a terminal.
func Restorer(out io.Writer) func() {
	fd := os.Stdin.Fd()
	if !term.IsTerminal(fd) {
		return nil
	}
	st, err := term.GetState(fd)
	if err != nil {
		return nil
	}
	return func() {
		_ = term.Restore(fd, st)
		// Leave the alternate screen, show the cursor, bracketed paste off,
		// pop the kitty keyboard flags, modifyOtherKeys off.
		_, _ = io.WriteString(out, "\x1b[?1049l\x1b[?25h\x1b[?2004l\x1b[<u\x1b[>4m\r")
	}
}
