package pool

import (
	"errors"
	"fmt"
	"time"

	"github.com/offtop/offtop/latency"
)

// MaxSize is the largest pool size Resize accepts.
const MaxSize = 256

// Errors returned by Submit, Do and Resize, or passed to done; match with
// errors.Is.
var (
	ErrSize      = fmt.Errorf("pool: size out of range 0..%d", MaxSize)
	ErrClosed    = errors.New("pool: closed")
	ErrQueueFull = errors.New("pool: queue full")
	// ErrTimeout is what done gets (wrapped, naming the timeout) when a task
	// ran past its timeout, on a worker or on Inline.
	ErrTimeout = errors.New("pool: task timed out")
)

// PanicError is the error a task's done callback gets when the task panicked
// (or called runtime.Goexit: Value is then an error saying so).
type PanicError struct {
	Value any    // what the task panicked with
	Stack []byte // the panicking goroutine's stack, from runtime/debug.Stack
}

func (e *PanicError) Error() string { return "pool: task panicked: " + sprint(e.Value) }

// Unwrap returns Value when it is an error, so errors.Is and errors.As see
// through a task that panicked with an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Options configure a Pool. The zero value is usable: size 0, unbounded
// queue, no inline executor (tasks at size 0 then wait for a worker),
// a clock reading the monotonic clock, latency.DefaultWindow, no task timeout,
// at most DefaultMaxAbandoned goroutines abandoned, no panic handler.
type Options struct {
	// Size is the initial number of workers, 0..MaxSize.
	Size int
	// MaxQueue bounds the queue; 0 means unbounded. A Submit beyond it
	// returns ErrQueueFull and is not counted as submitted.
	MaxQueue int
	// Inline runs tasks while the size is 0. It must run fn later on some
	// goroutine, exactly once, and must not block the caller. nil: tasks wait
	// in the queue until the pool grows. The pool calls it in FIFO order
	// holding a lock that serializes hand-offs, so it must not run fn
	// synchronously (a task submitting at size 0 would deadlock). Running a
	// wrapper twice, after Close dropped its task or after a resize from 0
	// moved it to the workers, does nothing.
	Inline func(fn func())
	// Now is the clock for latency and busy accounting. nil: New's
	// time.Now plus the monotonic time since (one clock read per call
	// instead of time.Now's two; it does not follow wall-clock steps).
	Now func() time.Time
	// Window is the span of the sliding latency window
	// (latency.DefaultWindow when 0).
	Window time.Duration
	// TaskTimeout limits the run time of every task Submit (and Do) queues,
	// from the moment a worker starts it; 0 (or negative) means no limit.
	// SubmitTimeout sets a task's own. Timeouts are kept with real-time
	// timers (time.AfterFunc), not Now. A task run by Inline past its
	// timeout is counted TimedOut and its done gets ErrTimeout as on a
	// worker, but the pool cannot replace the executor: it counts in Stuck
	// until the task returns.
	TaskTimeout time.Duration
	// MaxAbandoned caps the goroutines abandoned at a time (still running a
	// timed-out task after the pool replaced them): DefaultMaxAbandoned when
	// 0; negative means none is ever abandoned. A task timing out at the cap
	// is still counted TimedOut and its done still gets ErrTimeout, but its
	// worker keeps the slot (Stuck) and goes on when the task returns, so
	// worker goroutines never exceed the size + MaxAbandoned (+ busy
	// retirees, as after any shrink).
	MaxAbandoned int
	// PanicHandler is called, on the panicking goroutine, with the value of
	// a panic the pool cannot hand to a task's done: one in a done callback
	// (which must not panic), or a bug in the pool itself. The goroutine
	// ends after it returns, so it should record or report and return
	// (offtop passes its crash handler, which restores the terminal and
	// stops the program). nil: such a panic is not recovered and crashes
	// the program. A task's own panic never comes here: its done gets a
	// *PanicError. (Options.PanicHandler plays the part of ants'
	// WithPanicHandler.)
	PanicHandler func(v any)
	// Priority starts the pool with priority workers (SetPriority): each
	// worker on a thread of its own at the lowest priority (Linux: nice
	// 19) and GOMAXPROCS raised by the size, so the rest of the process
	// never waits for a P or a CPU behind a worker. New fails with
	// ErrPriorityUnavailable where the OS has no thread priorities.
	Priority bool
}

// Worker is one worker's cumulative accounting. Fractions over an
// interval are differences of two Stats divided by the wall time between them
// (see Utilization).
type Worker struct {
	// Slot is the worker's stable index 0..MaxSize-1; a replaced worker keeps
	// its slot. The inline executor is not a worker and has no slot.
	Slot int
	// Started is when New or Resize started this slot's worker (Options.Now);
	// Busy, OnCPU, Completed and Failed count from then. A slot that retires
	// and starts again counts from zero; Utilization tells the two apart.
	Started time.Time
	gen     uint64 // which start of the slot this is: unique per pool
	// Busy is the wall time (Options.Now) the worker spent on tasks since
	// Started, including the task in progress up to Stats.At. It is counted
	// per run of back-to-back tasks: from the start of a task taken while
	// idle to when the worker finds no next task, so the pool's bookkeeping
	// and done callbacks between back-to-back tasks (~1 us each) count as
	// busy; waiting for work never does.
	Busy time.Duration
	// OnCPU is the thread CPU time over the same runs (Linux
	// CLOCK_THREAD_CPUTIME_ID; the worker is locked to its OS thread for the
	// run), including the run in progress. After 16 runs in a row shorter
	// than 50 us, runs are not clocked (the reads would cost about what
	// such a run does) and their wall time counts as on-CPU, until a run of
	// 50 us or more makes the next 16 clocked again. Valid only when OnCPUKnown; it
	// is false on other systems, or after a clock read failed.
	OnCPU      time.Duration
	OnCPUKnown bool
	// Running reports whether the worker has a task: in progress, or handed
	// to it and about to start.
	Running bool
	// Retiring reports that a shrink chose this worker; it exits after its
	// current task.
	Retiring bool
	// Completed, Failed and TimedOut count tasks this slot finished or that
	// timed out on it; a slot whose worker was replaced (after a panic or a
	// timeout) keeps its counts, Started, Busy and OnCPU.
	Completed, Failed, TimedOut int64
	// Stuck reports that the worker's task in progress timed out while
	// MaxAbandoned goroutines were abandoned: the slot waits for the task to
	// return (Running stays true).
	Stuck bool
}

// Counts are the pool's task and worker counts, read under one lock (see
// Pool.Counts). Since New:
//
//	Submitted = Completed + Failed + TimedOut + Canceled + Running + Queued
type Counts struct {
	// Queued includes tasks handed to Inline and not yet started. Failed
	// counts tasks that panicked, that returned an error (SubmitErr,
	// SubmitContext) and that Close dropped; TimedOut counts
	// tasks that ran past their timeout (their done got ErrTimeout), whether
	// or not they have returned since.
	Submitted, Completed, Failed, TimedOut, Running, Queued int64
	// Canceled counts tasks whose context (SubmitContext) was done while
	// they waited: they never ran, and their done got the context's error.
	Canceled int64

	Rejected int64 // Submit calls refused with ErrQueueFull
	// Replaced counts worker goroutines replaced in their slot: after a
	// panicking task, and after a timed-out task whose goroutine was
	// abandoned.
	Replaced int64
	// Abandoned is how many goroutines are abandoned now: each still runs a
	// task that timed out, and exits quietly when it returns. At most
	// Options.MaxAbandoned while the pool is open (Close abandons stuck
	// workers and timed-out tasks regardless, as it starts no replacement).
	Abandoned int64
	// Stuck is how many workers hold their slot with a timed-out task
	// because Abandoned was at the cap, plus the tasks that timed out on
	// Inline and have not returned (each holds the executor).
	Stuck int64
}

// Stats is a copy of the pool's state; nothing in it is shared with the pool.
type Stats struct {
	At   time.Time // when the copy was taken (Options.Now)
	Size int       // target size set by Resize
	// Counts since New, read under the same lock as Workers, so
	// Submitted = Completed + Failed + TimedOut + Canceled + Running + Queued exactly.
	Counts
	Workers []Worker // live workers (retiring ones included), by slot

	// Latency of tasks over the sliding window and since Reset: Wait is
	// submit to start, Run is start to end, Total is submit to end.
	Wait, Run, Total          latency.Summary
	WaitAll, RunAll, TotalAll latency.Summary
}

// Utilization returns per-slot busy and on-CPU fractions (0..1, clamped) of
// the wall time between prev and cur, for the workers of cur in its order.
// onCPU is nil when the OS gives no thread CPU clock (some worker of cur has
// OnCPUKnown false, or cur has no workers). A slot absent from prev, or
// started again since prev (retired, then grown into), is measured from
// prev.At. When
// cur.At is not after prev.At every fraction is 0.
func Utilization(prev, cur Stats) (busy, onCPU []float64) { return utilization(prev, cur) }
