package main

import (
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/jobctl"
	"github.com/offtop/offtop/internal/lifecycle"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/ui"
)

// tui is the dashboard's front end, the summary (unless --no-summary)
// printed after it on the normal screen; with the session not closed
// within stopGrace, the run exits without the summary, saying so. Bubble
// Tea restores the terminal at every stop; a panic anywhere offtop
// recovers it (crash, ui) goes to the crasher, which stops the program,
// so Bubble Tea restores the terminal then too (the crasher has the last
// word if that hangs). ctrl+z and SIGTSTP suspend it (jobctl.Suspender).
//
// The screen is redrawn only when what it shows changes: when the source
// has taken a sample (every --interval, one Snapshot read; ui.Sampled) and
// on keys; Bubble Tea's renderer writes nothing for an unchanged view, so
// an idle dashboard costs no bytes between samples.
type tui struct {
	r   *runner
	w   io.Writer
	p   *tea.Program
	sus *jobctl.Suspender
	// sampled tells the dashboard of a sample through one slot, so a slow
	// or suspended program never holds the reader up.
	sampled0 chan struct{}
	stop     chan struct{} // closed when show returns
}

// newTUI makes the dashboard on w; when w is a terminal, its hanging up
// (or a failed write to it) ends the run as SIGHUP does.
func newTUI(r *runner, w io.Writer) *tui {
	t := &tui{r: r, w: w, sampled0: make(chan struct{}, 1), stop: make(chan struct{})}
	var out *jobctl.Output // w, its writes counted for the suspender
	pw := w
	if f, ok := w.(*os.File); ok {
		if jobctl.IsTerminal(f) {
			r.hup = jobctl.Watch(int(f.Fd()))
		}
		out = jobctl.NewOutput(f, r.hup.HungUp)
		pw = out
	}
	// Bubble Tea's own signal handling knows SIGINT and SIGTERM only; the
	// runner's covers SIGHUP too and keeps the signal for the exit code.
	var m tea.Model = ui.New(uiSource(r.src, r.start))
	if r.o.attach != nil && r.o.attach.fleet != nil {
		m = fleetModel(r.o.attach.fleet)
	}
	t.p = tea.NewProgram(m, tea.WithOutput(pw), tea.WithoutSignals(), tea.WithFPS(ui.FPS),
		tea.WithFilter(func(m tea.Model, msg tea.Msg) tea.Msg { return t.sus.Filter(m, msg) }))
	t.sus = jobctl.NewSuspender(t.p, out, ui.SuspendKey)
	r.cr.SetStop(t.p.Kill)
	r.cr.SetRestore(jobctl.Restorer(w))
	return t
}

func (t *tui) show() error {
	defer close(t.stop)
	// Attached, --interval is the redraw period (the agent samples at its
	// own): at most one redraw an interval. In-process the sampler runs at
	// --interval itself, so each sample is drawn.
	var gap time.Duration
	if t.r.o.attach != nil {
		gap = t.r.o.session.Interval
	}
	crash.Go(func() {
		lifecycle.ForwardSamples(t.sampled0, t.stop, gap, clock.Real, func() { t.p.Send(ui.Sampled()) }) // Send returns at once once the program has ended
	})
	_, err := t.p.Run()
	if t.sus.EndedRun() {
		// A stop came while suspended: the suspender killed the program
		// (no last frame over the shell), perhaps before the runner saw
		// the signal.
		err = nil
	}
	if !t.r.cr.IsCrashed() {
		t.r.cr.SetRestore(nil) // Bubble Tea has restored the terminal
	}
	return err
}

func (t *tui) quit() { t.p.Quit() }

func (t *tui) press(key string) { t.p.Send(ui.KeyMsg(key)) }

func (t *tui) sampled(session.Snapshot) {
	select {
	case t.sampled0 <- struct{}{}:
	default: // the dashboard has one to read already
	}
}

func (t *tui) endedBy() os.Signal { return t.sus.EndedBy() }

// finish writes the summary with the suspender's note to the terminal,
// or to stderr when the terminal is gone; none when the session did not
// close.
func (t *tui) finish(closed bool, sig os.Signal, err error) error {
	if closed && !t.r.o.noSummary {
		werr := t.r.writeSummary(t.w, t.sus.Note)
		if werr != nil && t.r.hup.IsGone() {
			werr = t.r.writeSummary(t.r.cr.Stderr, t.sus.Note)
		}
		if werr != nil && err == nil {
			err = writeErr(werr)
		}
	}
	if sig != nil {
		return asSignalError(sig)
	}
	return err
}

func (t *tui) release() {
	t.sus.Stop()
	t.r.cr.SetStop(nil)
	t.r.cr.SetRestore(nil)
}
