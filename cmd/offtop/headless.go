package main

import (
	"bufio"
	"encoding/json"
	"errors"
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
// it off). A closed stdout (offtop --headless | head -1) ends the run
// quietly. A panic (cr) ends it at once, the session not closed.
func runHeadless(o options, w, stderr io.Writer, cr *crasher) error {
	start := time.Now()
	s, err := session.New(o.session)
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
				_ = s.Apply(a) // a script's out-of-range step is ignored, as a key would be
			}
		})
	})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, stopSignals...)
	defer signal.Stop(sig)
	var deadline <-chan time.Time
	if o.duration > 0 {
		t := time.NewTimer(o.duration)
		defer t.Stop()
		deadline = t.C
	}

	err = func() error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		for {
			select {
			case snap := <-s.Samples():
				if hook != nil {
					hook()
				}
				sm.Add(snap)
				if err := enc.Encode(snap); err != nil {
					return writeErr(err)
				}
				if err := bw.Flush(); err != nil {
					return writeErr(err)
				}
			case <-deadline:
				return nil
			case <-quit:
				return nil
			case <-cr.crashed:
				return nil
			case s := <-sig:
				return asSignalError(s)
			}
		}
	}()
	close(stop)
	if cr.isCrashed() {
		return nil // run prints the panic; a panicked session may never close
	}
	s.Close()
	if !o.noSummary {
		sm.Finish(time.Since(start))
		_ = sm.Write(stderr)
	}
	return err
}

// writeErr treats a closed pipe as the reader's wish to stop.
func writeErr(err error) error {
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
