// Package pool is offtop's worker pool: a FIFO queue and N workers whose
// number you change at any time (Resize), with the accounting offtop's
// dashboard shows: per-worker busy time and on-CPU time, and queue wait,
// run and total latency per task.
//
// # Guarantees
//
// No task is lost or run twice. At every Stats (and Counts):
//
//	Submitted = Completed + Failed + TimedOut + Canceled + Running + Queued
//
// A task that panics is counted Failed, its done gets a *PanicError, and
// its worker is replaced; the pool goes on. A task whose context ends
// before it starts is counted Canceled and never runs. Growing starts workers at once;
// shrinking retires idle workers first and lets busy ones finish their
// task. Size 0 is "inline": tasks go, in order, to Options.Inline (your
// loop's Post), so a pool of 0 is the program without a pool; tasks handed
// there are still counted: queued until the executor starts them, then
// running.
//
// A task may have a timeout (Options.TaskTimeout, or SubmitTimeout): a
// limit on its run time on a worker. A task that runs past it is counted
// TimedOut and its done gets ErrTimeout at once. Go cannot stop a
// goroutine, so the task keeps running: its goroutine is abandoned
// (counted in Abandoned until the task returns; then it exits, counting
// nothing else and calling no done; until then it keeps the OS thread it
// is locked to) and a fresh worker goroutine takes the
// slot at once. At most Options.MaxAbandoned goroutines are abandoned at a
// time; a task timing out beyond that keeps its slot, Stuck, until it
// returns. A task run by Inline times out the same way, but the executor
// cannot be replaced: it counts in Stuck until the task returns. Tasks
// handed to Inline and not started move to the workers when the pool grows
// from 0, so none waits behind a task that holds the executor while
// workers are free.
//
// # Submitting
//
// Submit queues a func() and calls done with its outcome; SubmitErr takes a
// func() error, whose error counts the task Failed and goes to done;
// SubmitContext takes a func(context.Context) error and a context that,
// ended while the task waits, takes it off unrun (counted Canceled). Do and
// DoContext wait for the outcome instead; Go is Submit with no done;
// SubmitTimeout sets one task's timeout. The names follow pond's (Submit,
// SubmitErr, Go) and Go's Context convention; Resize is ants' Tune and
// pond's Resize, Size ants' Cap; Options.PanicHandler is ants'
// WithPanicHandler, for the panics a task's done cannot be given.
// Utilization turns two Stats into each worker's busy share between them.
//
// # Units
//
// Every time is a time.Duration; latencies are latency.Summary values
// (package latency, shared with looplag). Busy is wall time inside tasks
// (a run of back-to-back tasks counts as one busy stretch); OnCPU is the
// worker's thread CPU time over the same runs (Linux: the worker is locked
// to its OS thread for a run and reads CLOCK_THREAD_CPUTIME_ID; elsewhere
// OnCPUKnown is false). Busy 100% with on-CPU 25% is what oversubscription
// looks like. Latency percentiles are over a sliding window
// (Options.Window, latency.DefaultWindow by default) and since
// ResetLatency, at 2 significant figures, clamped at 100 s.
//
// # Concurrency
//
// Every method is safe for concurrent use. Close waits for running tasks;
// Submit after Close returns ErrClosed.
//
// # With the agent
//
// Give the pool to offtop's agent (package agent, Options.Pool) and
// `offtop attach` shows its workers live and resizes it with 0-9, + and -.
package pool

// Accounted is a pool offtop's agent can show and resize (agent.Options.Pool):
// a *Pool, or a *Meter over a pool of your own.
type Accounted interface {
	// Stats reads the pool: its counts, workers and latency.
	Stats() Stats
	// Counts reads its counts alone, cheaply.
	Counts() Counts
	// Resize sets its size.
	Resize(n int) error
	// ResetLatency empties its since-reset latency histograms.
	ResetLatency()

	accounted()
}

func (*Pool) accounted()  {}
func (*Meter) accounted() {}

// Size is the size Resize (or New) set last: ants' Cap, pond's
// MaxConcurrency.
func (p *Pool) Size() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.size
}
