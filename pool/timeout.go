package pool

import (
	"fmt"
)

// DefaultMaxAbandoned is the cap on abandoned goroutines used when
// Options.MaxAbandoned is 0.
const DefaultMaxAbandoned = 64

// expire is t's timer function: t, started on w at start, ran past its
// timeout, unless it has returned meanwhile (then expire does nothing). It
// counts t TimedOut, records its latency up to now and calls done with
// ErrTimeout. Under the MaxAbandoned cap (or once the pool is closed) w's
// goroutine is abandoned: it leaves the slot and the wait group, and a new
// worker sharing the slot's accounting takes the slot at once (unless w was
// retiring or the pool is closed). At the cap, w keeps the slot, stuck.
func (p *Pool) expire(w *worker, t *task, start int64) {
	p.mu.Lock()
	if t.state != stQueued { // returned first
		p.mu.Unlock()
		return
	}
	t.state = stTimedOut
	p.running--
	p.timedOut++
	w.timedOut++
	var fresh *worker
	var next *task
	if p.closed || p.abandoned < p.maxAbandoned {
		p.abandonLocked(w)
		if !p.closed && !w.retiring {
			fresh = &worker{slot: w.slot, gen: w.gen, started: w.started,
				wake: make(chan *task, 1), runAcct: w.runAcct,
				completed: w.completed, failed: w.failed, timedOut: w.timedOut}
			p.slots[w.slot] = fresh
			next = p.takeLocked(fresh)
			p.replaced++
			p.wg.Add(1)
		}
	} else {
		w.stuck = true
		p.stuck++
	}
	p.mu.Unlock()
	end := p.clock()
	if fresh != nil {
		// End the abandoned goroutine's run in the slot's accounting
		// before the replacement can begin one there.
		w.detach(end)
		go p.work(fresh, next)
	}
	p.record(t, start, end)
	t.report(fmt.Errorf("%w: ran past %v", ErrTimeout, t.timeout))
}

// abandonLocked takes w's goroutine, whose task timed out, out of its slot
// and out of wg: it is left to run until its task returns. Callers hold mu.
func (p *Pool) abandonLocked(w *worker) {
	if w.stuck {
		w.stuck = false
		p.stuck--
	}
	w.abandoned = true
	w.assigned = false
	p.abandoned++
	p.slots[w.slot] = nil
	p.wg.Done()
}

// expireInline is the timer function of t, started on Inline at start: t
// ran past its timeout, unless it has returned meanwhile. The Inline
// executor (the Loop) cannot be replaced, so it is counted Stuck until t
// returns, as a worker at the MaxAbandoned cap is; t is counted TimedOut,
// its latency recorded up to now and its done called with ErrTimeout.
func (p *Pool) expireInline(t *task, start int64) {
	p.mu.Lock()
	if t.state != stStarted { // returned first
		p.mu.Unlock()
		return
	}
	t.state = stTimedOut
	p.running--
	p.timedOut++
	p.stuck++
	p.mu.Unlock()
	p.record(t, start, p.clock())
	t.report(fmt.Errorf("%w: ran past %v on Inline", ErrTimeout, t.timeout))
}
