// Package pool is offtop's worker pool as a library: a FIFO queue and N
// workers whose number you change at any time (Resize), with the
// accounting offtop's dashboard shows: per-worker busy time and on-CPU
// time, and queue wait, run and total latency per task.
//
// # Guarantees
//
// No task is lost or run twice. At every Stats:
//
//	Submitted = Completed + Failed + TimedOut + Running + Queued
//
// A task that panics is counted Failed, its done gets a *PanicError, and
// its worker is replaced; the pool goes on. Growing starts workers at once;
// shrinking retires idle workers first and lets busy ones finish their
// task. Size 0 is "inline": tasks go, in order, to Options.Inline (your
// loop's Post), so a pool of 0 is the program without a pool.
//
// # Units
//
// Every time is a time.Duration; latencies are latency.Summary values
// (package latency, shared with looplag). Busy is wall time inside tasks (a run of
// back-to-back tasks counts as one busy stretch); OnCPU is the worker's
// thread CPU time over the same runs (Linux: the worker is locked to its OS
// thread for a run and reads CLOCK_THREAD_CPUTIME_ID; elsewhere
// OnCPUKnown is false). Busy 100% with on-CPU 25% is what
// oversubscription looks like. Latency percentiles are over a sliding
// window (Options.Window, 5 s by default) and since ResetLatency, at 2
// significant figures, clamped at 100 s.
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

import (
	"time"

	"github.com/offtop/offtop/internal/link"
	ipool "github.com/offtop/offtop/internal/pool"
	"github.com/offtop/offtop/latency"
)

func init() {
	link.PoolEngine = func(p any) link.Engine {
		switch p := p.(type) {
		case *Pool:
			if p != nil {
				return p.p
			}
		case *Meter:
			if p != nil {
				return meterEngine{p}
			}
		}
		return nil
	}
}

// Accounted is a pool offtop's agent can show and resize (agent.Options.Pool):
// a *Pool, or a *Meter over a pool of your own.
type Accounted interface{ accounted() }

func (*Pool) accounted()  {}
func (*Meter) accounted() {}

// MaxSize is the largest size New and Resize accept.
const MaxSize = 256

// MaxSize is the engine's: the build fails if they differ (a negative
// constant does not convert to uint).
const _ = uint(MaxSize-ipool.MaxSize) + uint(ipool.MaxSize-MaxSize)

// Errors of Submit, Do and Resize, or passed to done; match with
// errors.Is (an error may wrap one, adding detail). They are the engine's
// values, so errors.Is matches whichever package the error came through.
var (
	ErrSize      = ipool.ErrSize      // a size out of 0..MaxSize
	ErrClosed    = ipool.ErrClosed    // the pool is closed
	ErrQueueFull = ipool.ErrQueueFull // Options.MaxQueue tasks wait already
	ErrTimeout   = ipool.ErrTimeout   // the task ran past its timeout
)

// PanicError is what done gets (and Do returns) for a task that panicked,
// or called runtime.Goexit. It is the engine's type under this name, a
// struct of two fields:
//
//	Value any    // what the task panicked with (for Goexit: an error saying so)
//	Stack []byte // the panicking goroutine's stack, from runtime/debug.Stack
//
// Its Error is "pool: task panicked: " and Value; its Unwrap returns Value
// when that is an error, so errors.Is and errors.As see through it. Match
// it with errors.As(err, &pe) for a pe of type *PanicError.
type PanicError = ipool.PanicError

// Options configure a Pool. The zero value is usable: no workers (tasks
// wait until Resize, as there is no Inline), an unbounded queue, a 5 s
// latency window, no timeout.
type Options struct {
	// Size is the initial number of workers, 0..MaxSize.
	Size int
	// MaxQueue bounds the queue (0: unbounded); a Submit beyond it returns
	// ErrQueueFull and is not counted.
	MaxQueue int
	// Inline runs tasks while the size is 0: it must run fn later, exactly
	// once, on some goroutine (your loop), and must not block nor run fn
	// before returning. nil: tasks wait in the queue at size 0.
	Inline func(fn func())
	// Window is the span of the sliding latency window (5 s when 0).
	Window time.Duration
	// TaskTimeout limits every task's run time on a worker (0: none). A
	// task past it is counted TimedOut, its done gets ErrTimeout at once,
	// and its goroutine is abandoned and replaced (Go cannot stop it).
	TaskTimeout time.Duration
}

// Pool is a resizable FIFO worker pool. Make one with New.
type Pool struct{ p *ipool.Pool }

// New starts a pool with o.Size workers.
func New(o Options) (*Pool, error) {
	p, err := ipool.New(ipool.Options{Size: o.Size, MaxQueue: o.MaxQueue, Inline: o.Inline,
		Window: o.Window, TaskTimeout: o.TaskTimeout})
	if err != nil {
		return nil, err
	}
	return &Pool{p}, nil
}

// Submit queues fn and returns at once; done (may be nil) gets nil when fn
// returned, a *PanicError when it panicked, an error wrapping ErrTimeout
// when it ran past its timeout, ErrClosed when Close dropped it. done runs
// on the worker and must not block long nor panic.
func (p *Pool) Submit(fn func(), done func(err error)) error { return p.p.Submit(fn, done) }

// Do runs fn on the pool and waits for it; it returns what done would get.
func (p *Pool) Do(fn func()) error { return p.p.Do(fn) }

// Resize sets the number of workers to n (0..MaxSize, else ErrSize).
func (p *Pool) Resize(n int) error { return p.p.Resize(n) }

// Size is the size Resize (or New) set last.
func (p *Pool) Size() int { return p.p.Stats().Size }

// ResetLatency empties the since-reset latency histograms.
func (p *Pool) ResetLatency() { p.p.ResetLatency() }

// Close stops taking tasks, drops the queued ones (counted Failed, their
// done gets ErrClosed) and waits for running ones. Safe to call twice.
func (p *Pool) Close() { p.p.Close() }

// Worker is one worker's accounting since it started (see Stats).
type Worker struct {
	// Slot is the worker's stable index; a replaced worker keeps it.
	Slot int
	// Busy is wall time inside tasks, the one in progress included; OnCPU
	// is thread CPU time over the same runs, valid when OnCPUKnown.
	Busy, OnCPU time.Duration
	OnCPUKnown  bool
	// Running: the worker has a task. Retiring: a shrink chose it; it
	// exits after its task.
	Running, Retiring bool
	// Completed and Failed count its tasks.
	Completed, Failed int64
}

// Stats is a copy of the pool's state, its counts read under one lock.
type Stats struct {
	At   time.Time // when it was read
	Size int       // the size set last (Resize, or New)
	// Counts since New: Submitted = Completed + Failed + TimedOut +
	// Running + Queued.
	Submitted, Completed, Failed, TimedOut, Running, Queued int64
	Rejected                                                int64    // Submits refused with ErrQueueFull
	Workers                                                 []Worker // live workers, retiring ones included, by slot
	// Wait (submit to start), Run (start to end) and Total (submit to end)
	// over the window; the *All ones since ResetLatency. Count is tasks.
	Wait, Run, Total          latency.Summary
	WaitAll, RunAll, TotalAll latency.Summary
}

// Stats reads the pool. Busy shares over an interval are differences of
// two Stats (Busy / the time between their At).
func (p *Pool) Stats() Stats { return statsOf(p.p.Stats()) }

func statsOf(s ipool.Stats) Stats {
	out := Stats{At: s.At, Size: s.Size,
		Submitted: s.Submitted, Completed: s.Completed, Failed: s.Failed, TimedOut: s.TimedOut,
		Running: s.Running, Queued: s.Queued, Rejected: s.Rejected,
		Wait: s.Wait, Run: s.Run, Total: s.Total,
		WaitAll: s.WaitAll, RunAll: s.RunAll, TotalAll: s.TotalAll,
		Workers: make([]Worker, len(s.Workers)),
	}
	for i, w := range s.Workers {
		out.Workers[i] = Worker{Slot: w.Slot, Busy: w.Busy, OnCPU: w.OnCPU, OnCPUKnown: w.OnCPUKnown,
			Running: w.Running, Retiring: w.Retiring, Completed: w.Completed, Failed: w.Failed}
	}
	return out
}
