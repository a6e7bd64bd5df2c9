package main

import (
	"fmt"
	"io"
	"time"

	"github.com/offtop/offtop/internal/crash"
)

// stopGrace is how long a stopping run (q, the end of --duration, the
// first SIGINT or SIGTERM) waits for the session to close before it exits
// without it: with the summary of the samples so far (headless), the
// terminal restored (TUI). Close itself takes milliseconds when the
// scenario gives up its work on Stop (login, crash and stall cut theirs
// short); the grace is the guarantee that a stop ends the run within 2s
// whatever a scenario is doing.
const stopGrace = 1500 * time.Millisecond

// closeSession closes s, waiting at most grace or until crashed closes
// (nil: never), and reports whether Close finished. A Close that does not
// finish goes on in the background until the process exits.
func closeSession(s interface{ Close() }, grace time.Duration, crashed <-chan struct{}) (closed bool) {
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

// sayNotClosed is the line a run prints when its session did not close
// within the grace.
func sayNotClosed(w io.Writer, scenario string, grace time.Duration) {
	fmt.Fprintf(w, "offtop: the %s scenario did not stop within %v; exiting without waiting for it\n", scenario, grace)
}
