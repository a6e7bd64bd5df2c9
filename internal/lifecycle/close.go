// Package lifecycle is the parts of a run's lifecycle that do not depend
// on the command line: the stop signals (WatchStops), the session's
// Close within a grace (CloseWithin) and the dashboard's redraws at most
// one a gap (ForwardSamples).
package lifecycle

import (
	"fmt"
	"io"
	"time"

	"github.com/offtop/offtop/internal/crash"
)

// Grace is how long a stopping run (q, the end of --duration, the
// first SIGINT or SIGTERM) waits for the session to close before it exits
// without it: with the summary of the samples so far (headless), the
// terminal restored (TUI). Close itself takes milliseconds when the
// scenario gives up its work on Stop (login, crash and stall cut theirs
// short); the grace is the guarantee that a stop ends the run within 2s
// whatever a scenario is doing.
const Grace = 1500 * time.Millisecond

// CloseWithin closes s, waiting at most grace or until crashed closes
// (nil: never), and reports whether Close finished. A Close that does not
// finish goes on in the background until the process exits.
func CloseWithin(s interface{ Close() }, grace time.Duration, crashed <-chan struct{}) (closed bool) {
	done := make(chan struct{})
	crash.Go(func() {
		s.Close()
		close(done)
	})
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	case <-crashed:
		return false
	}
}

// SayNotClosed is the line a run prints when its session did not close
// within the grace.
func SayNotClosed(w io.Writer, scenario string, grace time.Duration) {
	fmt.Fprintf(w, "offtop: the %s scenario did not stop within %v; exiting without waiting for it\n", scenario, grace)
}
