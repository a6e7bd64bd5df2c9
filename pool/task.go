package pool

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"
)

// errGoexit is the PanicError value of a task that called runtime.Goexit.
var errGoexit = errors.New("pool: task called runtime.Goexit")

// task is one submitted function. Its scheduling fields are guarded by
// Pool.mu; fn, done, submitted and timeout are set before it is shared.
type task struct {
	fn        func()
	efn       func() error // instead of fn: a task that returns an error
	ctx       context.Context
	stop      func() bool // stops the AfterFunc watching ctx; nil when none
	done      func(error)
	reply     chan<- error  // Do's: gets what done would (cap 1); nil for Submit
	submitted int64         // Pool.clock at Submit
	timeout   time.Duration // run-time limit, on a worker or Inline; 0 = none
	loop      bool          // handed to Options.Inline (not a per-task goroutine)

	state taskState
}

// call runs the task's function and returns its error.
func (t *task) call() error {
	if t.efn != nil {
		return t.efn()
	}
	t.fn()
	return nil
}

// replies are Do's reply channels (cap 1, empty when in the pool).
var replies = sync.Pool{New: func() any { return make(chan error, 1) }}

// maxFree bounds the free list of tasks (Pool.free): what a burst leaves
// there beyond it goes to the garbage collector.
const maxFree = 4096

// taskSlab is how many tasks taskLocked allocates at once when the free
// list is empty: a submitter running ahead of the workers (the queue
// growing) costs one allocation per taskSlab tasks, not one per task.
const taskSlab = 64

// taskLocked returns a task to fill: a finished one from the free list, or
// the next of a slab of new ones. Submit allocates nothing in the steady
// state, and one slab per taskSlab tasks while the queue grows: a task goes back
// (freeLocked) only when nothing can refer to it any more: it finished on
// a worker with no timer armed (or one stopped before it fired), or was
// refused. Tasks run by Inline, dropped by Close or timed out are left to
// the garbage collector (an Inline wrapper may run twice, a timer or an
// abandoned goroutine may still hold the task). Callers hold mu.
func (p *Pool) taskLocked() *task {
	if n := len(p.free); n > 0 {
		t := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		return t
	}
	if len(p.slab) == 0 {
		p.slab = make([]task, taskSlab)
	}
	t := &p.slab[0]
	p.slab = p.slab[1:]
	return t
}

// needsLocked reports what the next Submit would allocate under mu: a
// slab of tasks (no free task left) or a chunk of the queue (no idle
// worker, and the queue's last chunk is full). Callers hold mu.
func (p *Pool) needsLocked() (slab, chunk bool) {
	return len(p.free) == 0 && len(p.slab) == 0, len(p.idle) == 0 && p.queue.full()
}

func newSlab(need bool) []task {
	if !need {
		return nil
	}
	return make([]task, taskSlab)
}

func newChunk(need bool) *chunk {
	if !need {
		return nil
	}
	return new(chunk)
}

// refillLocked keeps what a Submit allocated with mu released, unless
// another Submit refilled meanwhile. Callers hold mu.
func (p *Pool) refillLocked(slab []task, c *chunk) {
	if slab != nil && len(p.slab) == 0 {
		p.slab = slab
	}
	if c != nil {
		p.queue.give(c)
	}
}

// freeLocked clears t and puts it on the free list. Callers hold mu.
func (p *Pool) freeLocked(t *task) {
	*t = task{}
	if len(p.free) < maxFree {
		p.free = append(p.free, t)
	}
}

// report hands err to the task's submitter: done, or Do's reply channel.
func (t *task) report(err error) {
	if t.done != nil {
		t.done(err)
	}
	if t.reply != nil {
		t.reply <- err // cap 1, one report per task: never blocks
	}
}

type taskState uint8

const (
	stQueued   taskState = iota // handed to a worker, or running on it
	stWaiting                   // in Pool.queue
	stCanceled                  // its context was done while it waited, counted
	stPending                   // handed to Inline, not started
	stStarted                   // started by the Inline wrapper
	stDropped                   // dropped by Close
	stFinished                  // returned (or panicked) on a worker, counted
	stTimedOut                  // ran past its timeout (on a worker or Inline), counted
	stMoved                     // handed to Inline, then queued for a worker as a new task
)

// panicError wraps what recover returned. recover returns nil in a deferred
// call only when the task called runtime.Goexit (panic(nil) panics with
// *runtime.PanicNilError since Go 1.21).
func panicError(r any) error {
	if r == nil {
		r = errGoexit
	}
	return &PanicError{Value: r, Stack: debug.Stack()}
}

// sprint formats a panic value.
func sprint(v any) string { return fmt.Sprint(v) }

// fifo is the queue of tasks waiting for a worker: a list of fixed-size
// chunks, so it grows without copying what it holds (a ring that doubles
// copies a backlog of a million tasks under Pool.mu, while every worker
// waits), and emptied chunks are kept for the next pushes, up to
// maxSpare of them (what a burst leaves beyond that goes to the garbage
// collector).
type fifo struct {
	head, tail *chunk
	hi, ti     int // next to pop in head, next free in tail
	n          int
	spare      *chunk // emptied chunks, linked by next
	spares     int
}

// chunkLen tasks to a chunk: 1 KiB of pointers; maxSpare chunks kept
// empty hold 4096 tasks, as many as Pool.free keeps tasks.
const (
	chunkLen = 128
	maxSpare = maxFree / chunkLen
)

type chunk struct {
	t    [chunkLen]*task
	next *chunk
}

func (q *fifo) len() int { return q.n }

// full reports that push needs a new chunk and has no spare one.
func (q *fifo) full() bool { return (q.tail == nil || q.ti == chunkLen) && q.spare == nil }

// give keeps c, empty, for a push that needs a chunk.
func (q *fifo) give(c *chunk) {
	if q.spares < maxSpare {
		c.next, q.spare = q.spare, c
		q.spares++
	}
}

func (q *fifo) push(t *task) {
	if q.tail == nil || q.ti == chunkLen {
		c := q.spare
		if c != nil {
			q.spare, c.next = c.next, nil
			q.spares--
		} else {
			c = new(chunk)
		}
		if q.tail == nil {
			q.head, q.hi = c, 0
		} else {
			q.tail.next = c
		}
		q.tail, q.ti = c, 0
	}
	q.tail.t[q.ti] = t
	q.ti++
	q.n++
}

// pop returns the oldest task, or nil when empty.
func (q *fifo) pop() *task {
	if q.n == 0 {
		return nil
	}
	t := q.head.t[q.hi]
	q.head.t[q.hi] = nil
	q.hi++
	q.n--
	switch {
	case q.n == 0:
		q.hi, q.ti = 0, 0 // empty: the one chunk starts over
	case q.hi == chunkLen:
		c := q.head
		q.head, q.hi = c.next, 0
		q.give(c)
	}
	return t
}

// taskList is the set of tasks in Pool.pending, kept in the order they
// were added. It is a map beside the tasks, not links in them: every
// task queued for a worker would carry two more pointers for the garbage
// collector to scan (a backlog of a million tasks is a million scans a
// cycle), for a list only Inline and per-task tasks are on.
type taskList struct {
	m   map[*task]uint64 // task -> order added
	seq uint64
}

func (l *taskList) pushBack(t *task) {
	if l.m == nil {
		l.m = make(map[*task]uint64)
	}
	l.seq++
	l.m[t] = l.seq
}

func (l *taskList) remove(t *task) { delete(l.m, t) }

// drain empties l and returns its tasks in the order they were added.
func (l *taskList) drain() []*task {
	ts := make([]*task, 0, len(l.m))
	for t := range l.m {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b *task) int { return cmp.Compare(l.m[a], l.m[b]) })
	clear(l.m)
	return ts
}
