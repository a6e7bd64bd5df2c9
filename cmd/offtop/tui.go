package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/ui"
)

// runTUI runs the dashboard until q, ctrl+c, --duration, SIGINT, SIGTERM or
// SIGHUP, then prints the summary (unless --no-summary) on the normal
// screen. The session gets stopGrace to close; past it the run exits
// without the summary, saying so. Bubble Tea restores the terminal on each of these; a panic
// anywhere offtop recovers it (crash, ui) goes to cr, which stops the
// program, so Bubble Tea restores the terminal then too (cr has the last
// word if that hangs). A second signal exits at once, terminal restored.
//
// The screen is redrawn only when what it shows changes: when the source
// has taken a sample (every --interval, one Snapshot read; ui.Sampled) and
// on keys; Bubble Tea's renderer writes nothing for an unchanged view, so
// an idle dashboard costs no bytes between samples.
func runTUI(o options, w io.Writer, cr *crasher) error {
	start := time.Now()
	s, err := o.openSource()
	if err != nil {
		return err
	}
	closed := false
	defer func() {
		if !closed && !cr.isCrashed() { // after a panic the session may never close
			s.Close()
		}
	}()

	// The one reader of Samples: the summary's. It also tells the
	// dashboard of each sample (below), through a one-slot channel, so a
	// slow or suspended program never holds the summary up.
	sm := &summary{first: o.session.Scenario}
	sumDone := make(chan struct{})
	sampled := make(chan struct{}, 1)
	hook := samplesPanicHook(start)
	collectSummary(s.Samples(), sm, func() {
		if hook != nil {
			hook()
		}
		select {
		case sampled <- struct{}{}:
		default: // the dashboard has one to read already
		}
	}, sumDone)

	// Bubble Tea's own signal handling knows SIGINT and SIGTERM only; ours
	// covers SIGHUP too and keeps the signal for the exit code.
	var sus *suspender
	var out *drawnFile // w, its writes counted for the suspender
	pw := w
	hup := newHangup() // watched below when w is a terminal
	if f, ok := w.(*os.File); ok {
		if isTerminal(f) {
			hup = watchHangup(int(f.Fd()))
		}
		out = &drawnFile{File: f, failed: hup.hungUp}
		pw = out
	}
	defer hup.stop()
	p := tea.NewProgram(ui.New(uiSource(s, start)), tea.WithOutput(pw), tea.WithoutSignals(), tea.WithFPS(ui.FPS),
		tea.WithFilter(func(m tea.Model, msg tea.Msg) tea.Msg { return sus.filter(m, msg) }))
	sus = newSuspender(p, out)
	defer sus.stop()
	cr.setStop(p.Kill)
	cr.setRestore(terminalRestorer(w))
	defer cr.setStop(nil)
	defer cr.setRestore(nil)

	sig := make(chan os.Signal, 2)
	signal.Notify(sig, stopSignals...)
	defer signal.Stop(sig)
	var got atomic.Pointer[os.Signal]
	stop := make(chan struct{})
	defer close(stop)
	crash.Go(func() { playKeys(o.keys, start, stop, func(key string) { p.Send(ui.KeyMsg(key)) }) })
	// Attached, --interval is the redraw period (the agent samples at its
	// own): at most one redraw an interval. In-process the sampler runs at
	// --interval itself, so each sample is drawn.
	var gap time.Duration
	if o.attach != nil {
		gap = o.session.Interval
	}
	crash.Go(func() {
		forwardSamples(sampled, stop, gap, clock.Real, func() { p.Send(ui.Sampled()) }) // Send returns at once once the program has ended
	})
	if o.duration > 0 {
		crash.Go(func() {
			t := time.NewTimer(o.duration)
			defer t.Stop()
			select {
			case <-stop:
			case <-t.C:
				p.Quit()
			}
		})
	}
	var ended atomic.Bool // the dashboard has closed; the session is closing
	crash.Go(func() {
		// The first signal stops and restores; a second, or one after the
		// dashboard has closed (a slow Close), exits at once. The signal
		// the suspender ended the program for is the first, however late
		// it comes here. The terminal gone is a SIGHUP, and a SIGHUP after
		// it the same hang-up.
		first := true
		gone := hup.Gone()
		for {
			select {
			case <-stop:
				return
			case <-gone:
				gone = nil
				if first && !ended.Load() {
					first = false
					sg := os.Signal(syscall.SIGHUP)
					got.Store(&sg)
					p.Quit()
				}
				continue
			case sg := <-sig:
				if sg == syscall.SIGHUP && hup.isGone() {
					continue
				}
				if first && (!ended.Load() || sus.endedBy() != nil) {
					first = false
					got.Store(&sg)
					p.Quit()
					continue
				}
				cr.restoreTerminal()
				fmt.Fprintf(cr.stderr, "offtop: %v again: exiting at once\n", sg)
				code := exitError
				if se, ok := asSignalError(sg).(*signalError); ok {
					code = 128 + int(se.sig)
				}
				cr.exit(code)
				return
			}
		}
	})

	_, err = p.Run()
	ended.Store(true)
	if sus.endedRun() {
		// A stop came while suspended: the suspender killed the program
		// (no last frame over the shell), perhaps before the handler
		// above saw the signal.
		if sg := sus.endedBy(); sg != nil {
			got.CompareAndSwap(nil, &sg)
		}
		err = nil
	}
	if cr.isCrashed() {
		return nil // run prints the panic
	}
	cr.setRestore(nil) // Bubble Tea has restored the terminal
	closed = true      // by closeSession, or never: the process exits
	if _, ok := closeSession(s, stopGrace, nil, cr.crashed); !ok {
		if cr.isCrashed() {
			return nil
		}
		// The summary's reader still waits for Samples to close: no summary.
		sayNotClosed(cr.stderr, s.Snapshot().Scenario, stopGrace)
		if sg := got.Load(); sg != nil {
			return asSignalError(*sg)
		}
		return err
	}
	<-sumDone
	if cr.isCrashed() {
		return nil
	}
	if !o.noSummary {
		sm.Finish(time.Since(start))
		werr := writeSummary(w, sm, sus)
		if werr != nil && hup.isGone() {
			// The terminal is gone: stderr, if it is elsewhere.
			werr = writeSummary(cr.stderr, sm, sus)
		}
		if werr != nil && err == nil {
			err = writeErr(werr)
		}
	}
	if sg := got.Load(); sg != nil {
		return asSignalError(*sg)
	}
	return err
}

// forwardSamples calls send for each signal on sampled until stop closes,
// at least gap apart on clk (0: as they come): signals that come sooner
// wait, and those that come while one waits make one send (sampled holds
// one), so the model reads the newest sample once.
func forwardSamples(sampled <-chan struct{}, stop <-chan struct{}, gap time.Duration, clk clock.Clock, send func()) {
	var last time.Time
	for {
		select {
		case <-stop:
			return
		case <-sampled:
		}
		if wait := gap - clk.Now().Sub(last); gap > 0 && !last.IsZero() && wait > 0 {
			select {
			case <-stop:
				return
			case <-clk.After(wait):
			}
		}
		last = clk.Now()
		send()
	}
}

// writeSummary writes the run's summary and its notes to w.
func writeSummary(w io.Writer, sm *summary, sus *suspender) error {
	err := sm.Write(w)
	if err == nil {
		err = writeStopNote(w, sm.last)
	}
	if err == nil {
		err = sus.note(w)
	}
	return err
}
