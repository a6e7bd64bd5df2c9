package pool

import "time"

// submitInline hands t to Options.Inline, unless the size changed meanwhile.
func (p *Pool) submitInline(t *task) error {
	p.inlineMu.Lock()
	defer p.inlineMu.Unlock()
	p.mu.Lock()
	if p.size != 0 || p.closed { // grew (or closed) since Submit looked
		w, err := p.submitLocked(t)
		p.mu.Unlock()
		if w != nil {
			w.wake <- t
		}
		return err
	}
	if p.maxQ > 0 && p.queued >= int64(p.maxQ) {
		p.rejected++
		p.mu.Unlock()
		return ErrQueueFull
	}
	t.loop = true
	p.pendLocked(t)
	p.mu.Unlock()
	p.inline(func() { p.runInline(t) })
	return nil
}

// pendLocked counts t as submitted and queued, waiting in pending for its
// wrapper (runInline) to start it: an inline or a per-task task. Callers
// hold mu.
func (p *Pool) pendLocked(t *task) {
	p.submitted++
	p.queued++
	t.state = stPending
	p.pending.pushBack(t)
	p.watchLocked(t)
}

// runInline is the wrapper Inline runs for t. It runs t unless Close dropped
// it, Resize moved it to the workers or it already ran. A task with a
// timeout run by Inline that runs past it is counted as expireInline says.
func (p *Pool) runInline(t *task) {
	p.mu.Lock()
	if t.state != stPending {
		p.mu.Unlock()
		return
	}
	p.pending.remove(t)
	t.state = stStarted
	p.queued--
	p.running++
	p.inlineWG.Add(1)
	timed := t.loop && t.timeout > 0
	if timed {
		p.timerWG.Add(1) // under mu while !closed, as inlineWG: before Close waits
	}
	p.mu.Unlock()
	t.unwatch()

	ok := false
	var terr error // what t returned
	start := p.clock()
	var timer *time.Timer // armed while t runs on Inline with a timeout
	if timed {
		timer = time.AfterFunc(t.timeout, func() {
			defer p.recoverInternal()
			defer p.timerWG.Done()
			p.expireInline(t, start)
		})
	}
	defer func() {
		err := terr
		if !ok {
			err = panicError(recover())
		}
		end := p.clock()
		p.mu.Lock()
		late := t.state == stTimedOut
		switch {
		case late: // expireInline counted, recorded and reported t
			p.stuck--
		case err != nil:
			t.state = stFinished
			p.running--
			p.failed++
		default:
			t.state = stFinished
			p.running--
			p.completed++
		}
		p.mu.Unlock()
		if timer != nil && timer.Stop() {
			p.timerWG.Done() // its function will not run
		}
		if !late {
			p.record(t, start, end)
			t.report(err)
		}
		p.inlineWG.Done()
	}()
	terr = t.call()
	ok = true
}

// unhandLocked moves the tasks handed to Inline and not started to the
// front of the queue, in the order they were handed, each as a fresh task
// (the wrapper Inline holds keeps the old one, marked moved, so it never
// runs a recycled task). Counts do not change: they were queued and stay
// so. Per-task tasks stay with their goroutines. Callers hold inlineMu and
// mu.
func (p *Pool) unhandLocked() {
	var moved []*task
	for _, t := range p.pending.drain() {
		if !t.loop {
			p.pending.pushBack(t) // a per-task goroutine's, in order
			continue
		}
		t.unwatch() // a cancel already under way sees stMoved and leaves it
		nt := p.taskLocked()
		*nt = task{fn: t.fn, efn: t.efn, ctx: t.ctx, done: t.done, reply: t.reply,
			submitted: t.submitted, timeout: t.timeout, state: stWaiting}
		*t = task{state: stMoved}
		moved = append(moved, nt)
	}
	if len(moved) == 0 {
		return
	}
	for t := p.queue.pop(); t != nil; t = p.queue.pop() {
		moved = append(moved, t)
	}
	for _, t := range moved {
		p.queue.push(t)
		p.watchLocked(t) // the moved ones: cancel takes them off the queue now
	}
}
