package pool

import (
	"cmp"
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
	done      func(error)
	reply     chan<- error  // Do's: gets what done would (cap 1); nil for Submit
	submitted int64         // Pool.clock at Submit
	timeout   time.Duration // run-time limit on a worker; 0 = none

	state taskState
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
	stQueued   taskState = iota // in Pool.queue, handed to a worker, or running on it
	stPending                   // handed to Inline, not started
	stStarted                   // started by the Inline wrapper
	stDropped                   // dropped by Close
	stFinished                  // returned (or panicked) on a worker, counted
	stTimedOut                  // ran past its timeout on a worker, counted
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

// fifo is a ring buffer of tasks. Its size is a power of two.
type fifo struct {
	buf  []*task
	head int
	n    int
}

func (q *fifo) len() int { return q.n }

func (q *fifo) push(t *task) {
	if q.n == len(q.buf) {
		nb := make([]*task, max(16, 2*len(q.buf)))
		for i := 0; i < q.n; i++ {
			nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = t
	q.n++
}

// pop returns the oldest task, or nil when empty.
func (q *fifo) pop() *task {
	if q.n == 0 {
		return nil
	}
	t := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	if q.n == 0 && len(q.buf) > 1<<12 {
		q.buf, q.head = nil, 0 // let a burst's memory go
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
