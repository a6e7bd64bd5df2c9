package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"time"

	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/jobctl"
	"github.com/offtop/offtop/internal/lifecycle"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/ui"
)

// stopGrace is how long a stopping run waits for the session to close
// (lifecycle.Grace).
const stopGrace = lifecycle.Grace

// frontEnd is what a run shows its samples on: the dashboard (tui.go) or
// JSON Lines (headless.go). The runner calls show once, on the run's
// goroutine, and the rest from its own goroutines.
type frontEnd interface {
	// show shows the run until quit, or until the front end ends by
	// itself (a write that failed, a panic).
	show() error
	// quit ends show gracefully; safe to call more than once, before or
	// during show.
	quit()
	// press plays one --keys step.
	press(key string)
	// sampled takes each sample, on the one reader of Samples.
	sampled(session.Snapshot)
	// endedBy is the stop signal the front end ended show for by itself
	// (a stop while suspended); nil when none.
	endedBy() os.Signal
	// finish ends the run once the session has closed (closed), or not
	// within stopGrace: the summary, the run's error. sig is the stop
	// signal that ended it, nil for q, --duration or the end of show;
	// err is show's.
	finish(closed bool, sig os.Signal, err error) error
	// release undoes what the front end took; called last.
	release()
}

// runner owns one run's lifecycle, whatever shows it: the stop signals
// (SIGINT, SIGTERM, SIGHUP, the terminal hanging up: the first ends the
// run gracefully, a second, or one after the front end has ended, exits
// at once), --duration, the --keys script, the session's Close within
// stopGrace and the summary.
type runner struct {
	o     options
	cr    *crasher
	src   session.Source
	start time.Time
	sm    *summary
	// hup tells when the run's terminal hangs up; the front end chooses
	// which terminal (newRunner: none).
	hup *jobctl.Hangup
	sig chan os.Signal // the stop signals, from before the Source opens
}

// newRunner catches the stop signals and opens the run's Source: the
// agent's client when attached, else a new in-process session.
func newRunner(o options, cr *crasher) (*runner, error) {
	r := &runner{o: o, cr: cr, start: time.Now(), sm: &summary{First: o.session.Scenario}, hup: jobctl.NoWatch(),
		sig: make(chan os.Signal, 2)}
	signal.Notify(r.sig, jobctl.StopSignals...)
	if o.attach != nil && o.attach.fleet != nil {
		r.src = fleetSource{o.attach.fleet.fleet}
		return r, nil
	}
	if o.attach != nil {
		r.src = o.attach.client
		if o.attach.source != nil { // the client under a load (--load)
			r.src = o.attach.source
		}
		return r, nil
	}
	c := o.session
	if !o.headless {
		// The screen draws a paused scenario once a second: a sample
		// between those would be taken for nothing.
		c.PausedInterval = ui.PausedRedraw
	}
	s, err := session.New(c)
	if err != nil {
		signal.Stop(r.sig)
		return nil, err
	}
	r.src = s
	return r, nil
}

// run runs fe until a stop and returns the run's error: a *signalError
// for a stop signal, nil for q, --duration or a closed stdout.
func (r *runner) run(fe frontEnd) error {
	defer r.hup.Stop()
	defer fe.release()
	samples, halt := r.readSamples(fe)
	shown := make(chan struct{}) // closed when show returns
	crash.Go(func() { playKeys(r.o.keys, r.start, shown, fe.press) })
	if r.o.duration > 0 {
		crash.Go(func() {
			t := time.NewTimer(r.o.duration)
			defer t.Stop()
			select {
			case <-shown:
			case <-t.C:
				fe.quit()
			}
		})
	}
	var ended atomic.Bool // show has returned; the session is closing
	// The signal the front end ended show for is the first, however late
	// it comes here.
	stops := lifecycle.WatchStops(r.hup, r.sig, func() bool { return !ended.Load() || fe.endedBy() != nil }, fe.quit,
		func(sg os.Signal) {
			r.cr.RestoreTerminal()
			fmt.Fprintf(r.cr.Stderr, "offtop: %v again: exiting at once\n", sg)
			r.cr.Exit(exitCode(asSignalError(sg), io.Discard))
		})
	defer stops.End()

	err := fe.show()
	ended.Store(true)
	close(shown)
	if sg := fe.endedBy(); sg != nil {
		stops.EndedBy(sg)
	}
	if r.cr.IsCrashed() {
		return nil // run prints the panic; a panicked session may never close
	}
	closed := lifecycle.CloseWithin(r.src, stopGrace, r.cr.Crashed())
	if r.cr.IsCrashed() {
		return nil
	}
	if !closed {
		lifecycle.SayNotClosed(r.cr.Stderr, r.src.Snapshot().Scenario, stopGrace)
		close(halt) // the samples so far; Samples never closes
	}
	<-samples
	if r.cr.IsCrashed() {
		return nil
	}
	r.sm.Finish(time.Since(r.start))
	return fe.finish(closed, stops.Signal(), err)
}

// readSamples starts the one reader of the Source's Samples: each sample
// goes to fe, then to the summary. It ends when Samples closes (the
// session's Close has finished), or, once halt is closed, with the
// samples already sent; done is closed then.
func (r *runner) readSamples(fe frontEnd) (done <-chan struct{}, halt chan<- struct{}) {
	d, h := make(chan struct{}), make(chan struct{})
	hook := samplesPanicHook(r.start)
	take := func(snap session.Snapshot) {
		if hook != nil {
			hook()
		}
		fe.sampled(snap)
		r.sm.Add(snap)
	}
	crash.Go(func() {
		defer close(d)
		halted := false
		for {
			var snap session.Snapshot
			ok := true
			if halted {
				select {
				case snap, ok = <-r.src.Samples():
				default:
					return
				}
			} else {
				select {
				case snap, ok = <-r.src.Samples():
				case <-h:
					halted = true
					continue
				}
			}
			if !ok {
				return
			}
			take(snap)
		}
	})
	return d, h
}

// writeSummary writes the summary to w with the stop's note and notes
// (nil: none).
func (r *runner) writeSummary(w io.Writer, notes func(io.Writer) error) error {
	err := r.sm.Write(w)
	if err == nil {
		err = r.sm.StopNote(w)
	}
	if err == nil && notes != nil {
		err = notes(w)
	}
	return err
}

// runFront runs o on the front end it asks for and returns the exit code.
func runFront(o options, stdout, stderr io.Writer, cr *crasher) int {
	err := runOnce(o, stdout, stderr, cr)
	if cr.IsCrashed() {
		return cr.Fail()
	}
	return exitCode(err, stderr)
}

// runOnce runs o on the dashboard on stdout, or with --headless as JSON
// Lines on stdout and the summary on stderr, and returns the run's error.
func runOnce(o options, stdout, stderr io.Writer, cr *crasher) error {
	r, err := newRunner(o, cr)
	if err != nil {
		return err
	}
	if o.headless {
		return r.run(newHeadless(r, stdout, stderr))
	}
	return r.run(newTUI(r, stdout))
}
