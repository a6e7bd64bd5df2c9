package pool

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
// it or it already ran.
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
	p.mu.Unlock()
	t.unwatch()

	ok := false
	var terr error // what t returned
	start := p.clock()
	defer func() {
		err := terr
		if !ok {
			err = panicError(recover())
		}
		end := p.clock()
		p.mu.Lock()
		p.running--
		if err != nil {
			p.failed++
		} else {
			p.completed++
		}
		p.mu.Unlock()
		p.record(t, start, end)
		t.report(err)
		p.inlineWG.Done()
	}()
	terr = t.call()
	ok = true
}
