package pool

import "context"

// SubmitErr is Submit for a task that returns an error (pond's
// SubmitErr): a non-nil error counts the task Failed, as a panic does,
// and is what done gets, as it is; the worker goes on (it is not
// replaced). fn must not be nil.
func (p *Pool) SubmitErr(fn func() error, done func(err error)) error {
	if fn == nil {
		panic("pool: SubmitErr of nil func")
	}
	return p.submitTask(nil, fn, nil, done, nil, p.taskTimeout)
}

// SubmitContext is SubmitErr for a task that takes a context. While the
// task waits (queued for a worker, or handed to Options.Inline and not
// started), ctx being done takes it off: it never runs, it counts
// Canceled, and done gets ctx.Err() at once. Once started, fn runs with
// ctx, whose end is fn's to heed. When ctx is done already,
// SubmitContext returns ctx.Err() and counts nothing. ctx and fn must not
// be nil.
func (p *Pool) SubmitContext(ctx context.Context, fn func(ctx context.Context) error, done func(err error)) error {
	if ctx == nil || fn == nil {
		panic("pool: SubmitContext of nil Context or func")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return p.submitTask(nil, func() error { return fn(ctx) }, ctx, done, nil, p.taskTimeout)
}

// DoContext is SubmitContext that waits: it returns what done would get
// (nil, fn's error, ctx.Err() when ctx ended the wait before fn started,
// *PanicError, ErrTimeout, ErrClosed) or SubmitContext's error. Once fn
// has started, DoContext waits for it to return, or to time out. As with
// Do, calling it from a task can deadlock a pool with no free worker.
func (p *Pool) DoContext(ctx context.Context, fn func(ctx context.Context) error) error {
	if ctx == nil || fn == nil {
		panic("pool: DoContext of nil Context or func")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ch := replies.Get().(chan error)
	if err := p.submitTask(nil, func() error { return fn(ctx) }, ctx, nil, ch, p.taskTimeout); err != nil {
		replies.Put(ch)
		return err
	}
	err := <-ch
	replies.Put(ch)
	return err
}

// Go queues fn and returns at once, as Submit with no done (pond's Go).
func (p *Pool) Go(fn func()) error { return p.Submit(fn, nil) }

// watchLocked arranges for t, now waiting (stWaiting or stPending), to be
// canceled when its context is done. Callers hold mu, so cancel, which
// takes mu, sees t where it waits.
func (p *Pool) watchLocked(t *task) {
	if t.ctx != nil && t.stop == nil {
		t.stop = context.AfterFunc(t.ctx, func() { p.cancel(t) })
	}
}

// unwatch stops watching t's context, once t has started or was dropped.
// It reports whether nothing else refers to t any more: true when t had
// no watch, or cancel will never run for it.
func (t *task) unwatch() bool {
	return t.stop == nil || t.stop()
}

// cancel takes t off the queue or the Inline hand-off if it still waits
// there: counted Canceled, done gets its context's error. A task started
// (or dropped, or canceled) already is left as it is. A canceled task
// stays in the queue, skipped, until popLocked reaches it.
func (p *Pool) cancel(t *task) {
	p.mu.Lock()
	switch t.state {
	case stWaiting:
	case stPending:
		p.pending.remove(t)
	default:
		p.mu.Unlock()
		return
	}
	t.state = stCanceled
	p.queued--
	p.canceled++
	p.mu.Unlock()
	t.report(t.ctx.Err())
}

// popLocked returns the oldest waiting task, now stQueued, skipping the
// canceled ones, or nil. Callers hold mu.
func (p *Pool) popLocked() *task {
	for {
		t := p.queue.pop()
		if t == nil || t.state != stCanceled {
			if t != nil {
				t.state = stQueued
			}
			return t
		}
	}
}
