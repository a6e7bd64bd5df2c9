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

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/ui"
)

// runHeadless runs the session with no TUI and writes one JSON object per
// sample to w (JSON Lines) until --duration, a "q" step, SIGINT or SIGTERM.
// A closed stdout (offtop --headless | head -1) ends the run quietly.
func runHeadless(o options, w io.Writer) error {
	s, err := session.New(o.session)
	if err != nil {
		return err
	}
	defer s.Close()

	stop := make(chan struct{})
	quit := make(chan struct{}, 1)
	defer close(stop)
	go playKeys(o.keys, time.Now(), stop, func(key string) {
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
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, stopSignals...)
	defer signal.Stop(sig)
	var deadline <-chan time.Time
	if o.duration > 0 {
		t := time.NewTimer(o.duration)
		defer t.Stop()
		deadline = t.C
	}

	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for {
		select {
		case snap := <-s.Samples():
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
		case s := <-sig:
			return asSignalError(s)
		}
	}
}

// writeErr treats a closed pipe as the reader's wish to stop.
func writeErr(err error) error {
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
