package lifecycle

import (
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/jobctl"
)

// StopWatch is a run's stop signals: the first (a signal, or the
// terminal gone: SIGHUP) ends the run gracefully, a second exits at once.
type StopWatch struct {
	got  atomic.Pointer[os.Signal] // the stop signal that ended the run
	sig  chan<- os.Signal
	done chan struct{}
}

// WatchStops watches sig (signal.Notify's) and hup until End, which
// stops sig's signals: the first of them, while
// graceful says so, calls stop; any later one, or one while graceful says
// no, calls again. A SIGHUP after the terminal is gone is the same
// hang-up.
func WatchStops(hup *jobctl.Hangup, sig chan os.Signal, graceful func() bool, stop func(), again func(os.Signal)) *StopWatch {
	w := &StopWatch{sig: sig, done: make(chan struct{})}
	crash.Go(func() {
		first := true
		gone := hup.Gone()
		for {
			var sg os.Signal = syscall.SIGHUP
			hungUp := false
			select {
			case <-w.done:
				return
			case <-gone:
				gone, hungUp = nil, true
			case sg = <-sig:
				if sg == syscall.SIGHUP && hup.IsGone() {
					continue
				}
			}
			switch {
			case first && graceful():
				first = false
				w.got.Store(&sg)
				stop()
			case !hungUp:
				again(sg)
				return
			}
		}
	})
	return w
}

// Signal is the stop signal that ended the run, nil for none.
func (w *StopWatch) Signal() os.Signal {
	if p := w.got.Load(); p != nil {
		return *p
	}
	return nil
}

// End stops the watching.
func (w *StopWatch) End() {
	signal.Stop(w.sig)
	close(w.done)
}

// EndedBy records sg as the stop signal that ended the run, unless one
// did already.
func (w *StopWatch) EndedBy(sg os.Signal) { w.got.CompareAndSwap(nil, &sg) }
