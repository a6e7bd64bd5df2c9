package pool

// Per-task mode (a worker per request, against a pool with a queue;
// seed 000 s5 in docs/seeds.md): every task submitted while it is on gets a
// goroutine of its own at once, beside the workers, with no queue and no
// bound (Options.MaxQueue does not apply). Such a task is counted as every
// other: Submitted at Submit, Queued until its goroutine starts it (a
// goroutine not yet scheduled waits for a CPU as a queued task waits for
// a worker), then Running, then Completed or Failed; its latency goes to
// the same recorders. It runs exactly as a task handed to Options.Inline
// does (the same wrapper, runInline), so it has no timeout, Close drops
// it if its goroutine has not started it yet (done gets ErrClosed), and
// Close waits for those running. Tasks queued for workers before the mode
// was turned on stay queued for them.

// SetPerTask turns per-task mode on or off for tasks submitted from now
// on.
func (p *Pool) SetPerTask(on bool) { p.perTask.Store(on) }

// PerTask reports whether per-task mode is on.
func (p *Pool) PerTask() bool { return p.perTask.Load() }

// submitPerTaskLocked counts t and starts its goroutine. Callers hold mu;
// it unlocks it.
func (p *Pool) submitPerTaskLocked(t *task) error {
	if p.closed {
		p.freeLocked(t)
		p.mu.Unlock()
		return ErrClosed
	}
	p.pendLocked(t)
	p.mu.Unlock()
	go p.runInline(t)
	return nil
}
