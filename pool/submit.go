package pool

// SubmitErr is Submit for a task that returns an error (pond's
// SubmitErr): a non-nil error counts the task Failed, as a panic does,
// and is what done gets, as it is; the worker goes on (it is not
// replaced). fn must not be nil.
func (p *Pool) SubmitErr(fn func() error, done func(err error)) error {
	if fn == nil {
		panic("pool: SubmitErr of nil func")
	}
	return p.submitTask(nil, fn, done, nil, p.taskTimeout)
}

// Go queues fn and returns at once, as Submit with no done (pond's Go).
func (p *Pool) Go(fn func()) error { return p.Submit(fn, nil) }
