package session

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	guard "github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/workload"
)

// posted is an action waiting in the queue, with where its result goes.
type posted struct {
	a   Action
	res chan error
}

// ErrBusy is returned when more than maxPending actions wait.
var ErrBusy = errors.New("too many actions waiting")

const maxPending = 1024

// Post queues a for the control goroutine and returns at once; the
// returned channel receives its result (nil, or an error wrapping
// ErrAction) once it has been applied. Actions apply in the order Posted.
func (s *Session) Post(a Action) <-chan error {
	res := make(chan error, 1)
	select {
	case <-s.stop:
		res <- fmt.Errorf("%w: session closed", ErrAction)
	default:
		select {
		case s.actions <- posted{a, res}:
		default:
			res <- fmt.Errorf("%w: %w", ErrAction, ErrBusy)
		}
	}
	return res
}

// Apply posts a and waits until it has been applied.
func (s *Session) Apply(a Action) error { return <-s.Post(a) }

// control applies posted actions one at a time, in order, until Close.
// Close wins over the queue: once it has begun, the actions still
// waiting are answered "session closed", not applied. Resizes waiting
// back to back apply as one (foldResizes): the size they end at, each
// answered with its result, so a burst of + keys costs one resize.
func (s *Session) control() {
	defer guard.Recover() // a bug here reaches offtop's crash handler: terminal restored
	defer close(s.controlDone)
	var held *posted // taken from the queue while folding resizes: next to apply
	for {
		var p posted
		if held != nil {
			p, held = *held, nil
		} else {
			select {
			case <-s.stop:
			case p = <-s.actions:
			}
		}
		select {
		case <-s.stop:
			if p.res != nil {
				p.res <- fmt.Errorf("%w: session closed", ErrAction)
			}
			for {
				select {
				case p := <-s.actions:
					p.res <- fmt.Errorf("%w: session closed", ErrAction)
				default:
					return
				}
			}
		default:
		}
		batch := []posted{p}
		a := p.a
		for s.foldsResize(a) {
			var q posted
			select {
			case q = <-s.actions:
			default:
			}
			if q.res == nil {
				break
			}
			if !foldable(a, q.a) || !s.foldsResize(q.a) {
				held = &q
				break
			}
			a = foldResizes(a, q.a)
			batch = append(batch, q)
		}
		err := s.apply(a)
		for _, q := range batch {
			q.res <- err
		}
	}
}

// resize reports whether a is a resize that cannot fail for its size: an
// addition (clamped), or a size set within 0..MaxWorkers.
func resize(a Action) bool {
	return a.Kind == AddWorkers || (a.Kind == SetWorkers && a.N >= 0 && a.N <= MaxWorkers)
}

// foldsResize reports whether a is a resize that may fold with others: a
// resize, and not one that may be refused for reaching size 0
// (zeroRefused: a shrink or a size of 0 then applies alone).
func (s *Session) foldsResize(a Action) bool {
	if !resize(a) {
		return false
	}
	return !s.target.zeroRefused() || (a.Kind == SetWorkers && a.N > 0) || (a.Kind == AddWorkers && a.N >= 0)
}

// foldable reports whether the resize next can fold into acc, a resize
// (or a run of them folded) waiting before it: both resizes (resize), and
// additions of one sign (clamping at 0 and MaxWorkers makes -1 +1 at 0
// end at 1, not 0), both the size search's or both not.
func foldable(acc, next Action) bool {
	if !resize(acc) || !resize(next) || acc.search != next.search {
		return false // a key's resize cancels the size search: never folded into one of the search's
	}
	if acc.Kind == AddWorkers && next.Kind == AddWorkers {
		return (acc.N >= 0) == (next.N >= 0)
	}
	return true
}

// foldResizes is the one resize that ends where acc then next end.
func foldResizes(acc, next Action) Action {
	switch {
	case next.Kind == SetWorkers:
		return next
	case acc.Kind == SetWorkers:
		acc.N = addClamped(acc.N, next.N, 0, MaxWorkers)
		return acc
	}
	acc.N = addClamped(acc.N, next.N, -MaxWorkers, MaxWorkers) // any addition past MaxWorkers ends where this one does
	return acc
}

// addClamped is x+d clamped to lo..hi (lo <= hi), without overflow
// whatever x and d.
func addClamped(x, d, lo, hi int) int {
	switch {
	case d > 0 && x > math.MaxInt-d:
		return hi
	case d < 0 && x < math.MinInt-d:
		return lo
	}
	return min(max(x+d, lo), hi)
}

// setPaused pauses or resumes scen's load and the size rows' clocks; on
// resume the sampler goes back to every Interval. Only the control
// goroutine calls it.
func (s *Session) setPaused(scen *stopOnce, paused bool) {
	s.mu.Lock()
	s.paused = paused
	scen.Pause(paused)
	s.mu.Unlock()
	s.sizes.pause(paused)
	if !paused {
		s.wakeSampler()
	}
}

// apply carries out one action; only the control goroutine calls it.
func (s *Session) apply(a Action) error {
	if err := s.target.allows(a); err != nil {
		return err
	}
	if !a.search && a.Kind != AutoSize {
		s.search.stop(true) // any other action cancels the search
	}
	if a.search && !s.search.active() {
		return nil // posted by a search just canceled: a key came first
	}
	s.mu.Lock()
	scen := s.scen
	s.mu.Unlock()
	switch a.Kind {
	case AutoSize:
		// A paused load would leave every hold without a figure: the
		// search resumes it (a Program's pool is never paused by offtop).
		s.mu.Lock()
		paused := s.paused
		s.mu.Unlock()
		if paused && s.target.allows(Action{Kind: TogglePause}) == nil {
			s.setPaused(scen, false)
		}
		s.startSearch()
	case CancelAutoSize: // stopped above
	case SetWorkers, AddWorkers:
		n := a.N
		if a.Kind == AddWorkers {
			n = addClamped(s.pool.Stats().Size, a.N, 0, MaxWorkers) // the pool's own: a program may resize it itself
		}
		if n == 0 && s.target.zeroRefused() {
			return fmt.Errorf("%w: %w", ErrAction, ErrNoInline)
		}
		if err := s.pool.Resize(n); err != nil {
			return fmt.Errorf("%w: %w", ErrAction, err)
		}
		s.mu.Lock()
		s.workers = n
		s.resizes++
		s.mu.Unlock()
		s.enterSize(s.sizeKey())
	case Load:
		scen.SetLoad(a.N)
		s.showLoad(scen.Status().Load)
	case TogglePause:
		s.mu.Lock()
		paused := !s.paused
		s.mu.Unlock()
		s.setPaused(scen, paused)
	case Reset:
		if !a.search { // a key's r: the search's result goes with the rows it measured
			s.search.wg.Wait() // stopped above; its posts see the cancel and return
			s.search.forget()
		}
		s.histGen.Add(1)
		s.resetFigures()
		scen.Reset()
		k := s.sizeKey()
		s.sizes.clear(k.scen, k)
	case NextScenario:
		return s.switchScenario()
	case TogglePerTask:
		s.own.SetPerTask(!s.own.PerTask()) // the session's own pool: a Program's target refuses it
	case TogglePriority:
		if err := s.own.SetPriority(!s.own.Priority()); err != nil {
			return fmt.Errorf("%w: %w", ErrAction, err)
		}
		s.enterSize(s.sizeKey())
	case Turn:
		if k, ok := scen.Workload.(workload.Knobber); ok {
			k.Turn(a.Key)
		}
	case AddGOMAXPROCS:
		n := addClamped(s.baseProcs(), a.N, 1, runtime.NumCPU())
		s.setGOMAXPROCS(func() { runtime.GOMAXPROCS(n) }) // resizing the pool never does this; only this action
		s.mu.Lock()
		s.gmpSource = "offtop"
		s.mu.Unlock()
		s.enterSize(s.sizeKey())
	case DefaultGOMAXPROCS:
		s.setGOMAXPROCS(runtime.SetDefaultGOMAXPROCS)
		s.mu.Lock()
		s.gmpSource = "runtime"
		s.mu.Unlock()
		s.enterSize(s.sizeKey())
	default:
		return fmt.Errorf("%w: kind %d", ErrAction, a.Kind)
	}
	return nil
}

// resetFigures empties the pool's and the probes' histograms, and the
// headline's window and the charts' per-second probe (the size rows are
// the caller's business: r clears the scenario's, tab keeps them).
func (s *Session) resetFigures() {
	s.pool.ResetLatency()
	s.lag.Reset()
	s.sched.Reset()
	s.sizes.second.Reset()
	s.sizes.window.Reset()
}

// switchScenario stops the current scenario (its servers closed, its
// goroutines gone) and starts the next in the registry. The pool and its
// counts are kept; the histograms start afresh, so the new scenario's
// figures are its own. Only the control goroutine calls it; mu is not held
// while scenarios stop and start.
func (s *Session) switchScenario() error {
	s.mu.Lock()
	old, oldName := s.scen, s.scenName
	s.mu.Unlock()
	scen, err := s.target.next(oldName)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrAction, err)
	}
	next := scen.Name()
	old.Stop()
	k := s.sizeKey()
	k.scen = next
	s.sizes.pause(false) // the next scenario starts with its load on
	s.enterSize(k)       // before Start: the new scenario's first observations are its own
	if err := scen.Start(s.env()); err != nil {
		k.scen = oldName
		s.enterSize(k)
		// Fall back to a fresh copy of the old scenario so the run goes on.
		if again, err2 := s.target.again(oldName); err2 == nil && again.Start(s.env()) == nil {
			s.mu.Lock()
			s.scen = &stopOnce{Workload: again}
			s.mu.Unlock()
		}
		return fmt.Errorf("%w: start %s: %w", ErrAction, next, err)
	}
	s.resetFigures()
	s.histGen.Add(1)
	c := s.pool.Stats().Counts
	s.mu.Lock()
	s.scen, s.scenName, s.paused = &stopOnce{Workload: scen}, next, false
	s.scenStart = PoolCounts{Submitted: c.Submitted, Completed: c.Completed, Failed: c.Failed, TimedOut: c.TimedOut, Rejected: c.Rejected}
	s.mu.Unlock()
	s.wakeSampler()
	return nil
}

// wakeSampler tells a sampler spaced out by a pause (PausedInterval) that
// the load is not paused now. It never blocks.
func (s *Session) wakeSampler() {
	select {
	case s.unpaused <- struct{}{}:
	default:
	}
}
