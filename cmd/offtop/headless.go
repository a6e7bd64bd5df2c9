package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/ui"
)

// runHeadless runs the session with no TUI and writes one JSON object per
// sample to w (JSON Lines) until --duration, a "q" step, SIGINT or SIGTERM,
// then the summary to stderr (stdout stays JSON Lines; --no-summary turns
// it off). The session's last sample, taken as it closes, is the last
// line, marked final (its interval figures over the whole run). A stop ends the run within stopGrace (or at once on a second
// signal, without the summary). A closed stdout (offtop --headless | head
// -1) ends the run quietly. A panic (cr) ends it at once, the session not
// closed.
func runHeadless(o options, w, stderr io.Writer, cr *crasher) error {
	start := time.Now()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, stopSignals...)
	defer signal.Stop(sig)
	s, err := o.openSource()
	if err != nil {
		return err
	}
	hook := samplesPanicHook(start)
	sm := &summary{first: o.session.Scenario}
	stop := make(chan struct{})
	quit := make(chan struct{}, 1)
	crash.Go(func() {
		playKeys(o.keys, start, stop, func(key string) {
			a, q, ok := ui.ActionFor(key)
			switch {
			case q:
				select {
				case quit <- struct{}{}:
				default:
				}
			case ok:
				_ = session.Apply(s, a) // a script's out-of-range step is ignored, as a key would be
			}
		})
	})
	// A terminal among stdin, stdout and stderr that hangs up ends the
	// run as SIGHUP does.
	hup := watchTerminal(os.Stdin, w, stderr)
	defer hup.stop()
	var deadline <-chan time.Time
	if o.duration > 0 {
		t := time.NewTimer(o.duration)
		defer t.Stop()
		deadline = t.C
	}

	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	var werr error // the first write error; no lines after it
	link := linkNotes{w: stderr}
	write := func(snap session.Snapshot) {
		if hook != nil {
			hook()
		}
		if link.skip(snap) { // attached, and the program is gone: no line
			return
		}
		sm.Add(snap)
		if werr != nil {
			return
		}
		if werr = enc.Encode(snap); werr == nil {
			werr = bw.Flush()
		}
	}
	err = func() error {
		for {
			select {
			case snap := <-s.Samples():
				if write(snap); werr != nil {
					return nil
				}
			case <-deadline:
				return nil
			case <-quit:
				return nil
			case <-cr.crashed:
				return nil
			case s := <-sig:
				return asSignalError(s)
			case <-hup.Gone():
				return asSignalError(syscall.SIGHUP)
			}
		}
	}()
	close(stop)
	if cr.isCrashed() {
		return nil // run prints the panic; a panicked session may never close
	}
	again, closed := closeSession(s, stopGrace, sig, cr.crashed)
	switch {
	case cr.isCrashed():
		return nil
	case again != nil:
		fmt.Fprintf(stderr, "offtop: %v again: exiting at once\n", again)
		return asSignalError(again)
	case !closed:
		sayNotClosed(stderr, s.Snapshot().Scenario, stopGrace)
	}
	// The samples taken while the session closed, its last one included.
	// Samples is closed once Close has finished.
	for more := true; more; {
		select {
		case snap, ok := <-s.Samples():
			if more = ok; ok {
				write(snap)
			}
		default:
			more = false
		}
	}
	if err == nil && werr != nil {
		err = writeErr(werr)
	}
	if werr != nil && err != nil {
		return err // stdout refused the lines: that one line, no summary
	}
	if !o.noSummary {
		sm.Finish(time.Since(start))
		if sm.Write(stderr) == nil {
			_ = writeStopNote(stderr, sm.last)
		}
	}
	link.end()
	return err
}

// writeErr treats a closed pipe as the reader's wish to stop.
func writeErr(err error) error {
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
