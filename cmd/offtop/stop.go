package main

import (
	"fmt"
	"io"
	"time"

	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/session"
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

// writeStopNote tells, after the summary, what the stop did to a Loop
// stall in progress (last is the session's last sample): cut short (the
// stall scenario's stalls_cut; the probe recorded it, so the probe max
// above includes it) or, when the Loop was still blocked as the run
// ended, for how long (probe_stalled_ms; not in the probe max). Nothing
// when neither.
func writeStopNote(w io.Writer, last session.Snapshot) error {
	var cut, cutMS float64 // stalls cut (one at most: the stop's), and its length
	for _, r := range last.Readouts {
		switch {
		case r.Key == "stalls_cut" && r.Known:
			cut = r.Value
		case r.Key == "last_stall_ms" && r.Known:
			cutMS = r.Value
		}
	}
	var err error
	if cut > 0 {
		_, err = fmt.Fprintf(w, "the stop cut a Loop stall short after %.0f ms (in the probe max)\n", cutMS)
	}
	if last.ProbeStalled > 0 {
		_, err = fmt.Fprintf(w, "the Loop was still blocked at the end, for %.0f ms: not in the probe max\n",
			float64(last.ProbeStalled)/float64(time.Millisecond))
	}
	return err
}
