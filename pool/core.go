package pool

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/offtop/offtop/internal/cpuclock"
	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/latency"
)

// Pool is a resizable FIFO worker pool. Create it with New; all methods are
// safe for concurrent use. A Pool must be closed with Close, which waits for
// its goroutines.
type Pool struct {
	// Locks, always taken in this order (never the other way round):
	//
	//   - inlineMu serializes hand-offs to Options.Inline (Submit at size 0 and
	//     Resize), so the executor receives tasks in FIFO order. It is held
	//     while calling Inline, never while a task runs.
	//   - mu guards every count, the queue, the slots and every worker's
	//     scheduling fields (idle, assigned, retiring, stuck, abandoned,
	//     per-slot counts, the slot's latencies not yet recorded), every
	//     task's state, the list of tasks handed to Inline and not yet
	//     started, size and closed. Nothing slow runs under it: no task, no
	//     callback, no syscall, no histogram write.
	//   - runAcct.mu (one per slot life, shared by the goroutines that replace
	//     each other in it) guards that slot's busy and on-CPU accounting and
	//     the thread id of its run in progress (see work). It is never held
	//     together with mu.
	//
	// The latency recorders lock themselves and are written outside mu.
	//
	// Timeouts: a worker starting a task with a timeout arms a time.AfterFunc
	// timer (timerWG counts armed timers until they are stopped or their
	// function has returned). The task's state, under mu, decides the race
	// between the task returning (finishOnWorker) and the timer firing
	// (expire): whichever takes mu first wins, the other does nothing. Tasks
	// without a timeout arm nothing; their only extra cost is a state write
	// under mu that is taken anyway.
	//
	// Contexts: a task with one is watched by context.AfterFunc while it
	// waits (watchLocked). Its state, under mu, decides the race between a
	// pop or its Inline start (stWaiting or stPending to started) and cancel
	// (to stCanceled), as for timeouts.

	now     func() time.Time // Options.Now, or epoch plus clock
	clock   func() int64     // ns since epoch on the pool's clock: one read per call
	epoch   time.Time        // New's reading of the clock
	inline  func(fn func())
	maxQ    int
	onPanic func(any) // Options.PanicHandler

	taskTimeout  time.Duration // Options.TaskTimeout; 0 = none
	maxAbandoned int64         // cap on abandoned; 0 = none may be

	wait, run, total *hist.Recorder

	inlineMu sync.Mutex

	mu     sync.Mutex
	closed bool
	size   int              // target size = live workers not retiring
	slots  [MaxSize]*worker // live workers (retiring included) by slot
	idle   []*worker        // idle workers; the last gets the next task
	free   []*task          // finished tasks to reuse (taskLocked, freeLocked)
	slab   []task           // new tasks not handed out yet (taskLocked)
	queue  fifo             // tasks waiting for a worker
	// pending lists tasks handed to Inline and not yet started.
	pending taskList
	gen     uint64 // last worker generation handed out
	// Counts, as in Stats; queued includes pending.
	submitted, completed, failed, timedOut, running, queued int64
	canceled, rejected, replaced, abandoned, stuck          int64

	// wg counts worker goroutines that are not abandoned; Add only under mu
	// while !closed. expire calls Done for the goroutine it abandons.
	wg       sync.WaitGroup
	inlineWG sync.WaitGroup // inline tasks in progress; Add only under mu while !closed
	// timerWG counts armed task timers: Add by the worker goroutine before
	// arming (while it counts in wg), Done when Stop stopped the timer or
	// when its function returns.
	timerWG   sync.WaitGroup
	closeDone chan struct{} // closed when the first Close has finished

	perTask atomic.Bool // per-task mode (pertask.go)

	// Priority workers (priority.go). procsMu serializes GOMAXPROCS
	// changes and guards extra (the Ps the pool added) and procsSet (the
	// GOMAXPROCS it last set; 0: none); it is taken before mu, never
	// inside it.
	priority        atomic.Bool
	procsMu         sync.Mutex
	extra, procsSet int
}

// New returns a pool with o.Size workers started. It fails with ErrSize
// when o.Size is outside 0..MaxSize. A negative o.MaxQueue means unbounded,
// like 0.
func New(o Options) (*Pool, error) {
	if o.Size < 0 || o.Size > MaxSize {
		return nil, fmt.Errorf("%w: %d", ErrSize, o.Size)
	}
	if o.MaxQueue < 0 {
		o.MaxQueue = 0
	}
	o.Priority = o.Priority || forcePriority
	if o.Priority && !priorityKnown {
		return nil, ErrPriorityUnavailable
	}
	epoch := time.Now()
	clock := func() int64 { return int64(time.Since(epoch)) }
	if o.Now == nil {
		o.Now = func() time.Time { return epoch.Add(time.Since(epoch)) }
	} else {
		now := o.Now
		epoch = now()
		clock = func() int64 { return int64(now().Sub(epoch)) }
	}
	if o.Window <= 0 {
		o.Window = latency.DefaultWindow
	}
	switch {
	case o.MaxAbandoned == 0:
		o.MaxAbandoned = DefaultMaxAbandoned
	case o.MaxAbandoned < 0:
		o.MaxAbandoned = 0
	}
	p := &Pool{
		now:          o.Now,
		clock:        clock,
		epoch:        epoch,
		inline:       o.Inline,
		onPanic:      o.PanicHandler,
		maxQ:         o.MaxQueue,
		taskTimeout:  max(o.TaskTimeout, 0),
		maxAbandoned: int64(o.MaxAbandoned),
		wait:         hist.NewRecorder(o.Window, o.Now),
		run:          hist.NewRecorder(o.Window, o.Now),
		total:        hist.NewRecorder(o.Window, o.Now),

		closeDone: make(chan struct{}),
	}
	p.priority.Store(o.Priority)
	p.mu.Lock()
	p.resizeLocked(o.Size)
	p.mu.Unlock()
	p.adjustProcs()
	return p, nil
}

// Submit queues fn to run once on a worker (or on Options.Inline at size
// 0), in FIFO order with other submissions, with Options.TaskTimeout as its
// timeout. done, if non-nil, is called exactly once, with no pool lock held,
// after fn returns (nil), after fn panics (*PanicError; also when fn calls
// runtime.Goexit), when fn runs past its timeout (ErrTimeout, at the
// timeout; fn's return, if it ever comes, is then ignored) or when Close
// drops fn before it started (ErrClosed). done runs on the goroutine that
// ran fn (the timeout's timer goroutine, or Close's) and delays that
// worker's next task, so keep it short; it must not panic.
//
// Submit returns ErrClosed after Close and ErrQueueFull when Options.MaxQueue
// tasks are already queued and no worker is idle; then fn is not counted as
// submitted, done is never called, and ErrQueueFull counts as Rejected.
// Submit never blocks on a task. fn must not be nil.
func (p *Pool) Submit(fn func(), done func(err error)) error {
	return p.submit(fn, p.taskTimeout, done)
}

// SubmitTimeout is Submit with the task's own timeout instead of
// Options.TaskTimeout: a limit on its run time on a worker, counted from
// when the worker starts it (queue wait does not count); 0 or negative
// means none. A task that runs past it is counted TimedOut, done gets
// ErrTimeout at once, and its goroutine is abandoned and replaced (or,
// with Options.MaxAbandoned goroutines abandoned already, keeps its slot
// until the task returns). On Options.Inline it is counted and reported
// the same, and the executor counts in Stuck until the task returns.
func (p *Pool) SubmitTimeout(fn func(), timeout time.Duration, done func(err error)) error {
	return p.submit(fn, max(timeout, 0), done)
}

func (p *Pool) submit(fn func(), timeout time.Duration, done func(err error)) error {
	if fn == nil {
		panic("pool: Submit of nil func")
	}
	return p.submitTask(fn, nil, nil, done, nil, timeout)
}

// submitTask queues a task for fn or efn (a recycled one when there is
// one), canceled with ctx (may be nil) while it waits, that reports to
// done or reply.
func (p *Pool) submitTask(fn func(), efn func() error, ctx context.Context, done func(error), reply chan<- error, timeout time.Duration) error {
	now := p.clock()
	p.mu.Lock()
	if slab, chunk := p.needsLocked(); slab || chunk {
		// Allocate with mu released: an allocation may assist the
		// garbage collector for microseconds, and every worker finishing
		// a task waits for mu meanwhile.
		p.mu.Unlock()
		s, c := newSlab(slab), newChunk(chunk)
		p.mu.Lock()
		p.refillLocked(s, c)
	}
	t := p.taskLocked()
	t.fn, t.efn, t.ctx, t.done, t.reply, t.submitted, t.timeout = fn, efn, ctx, done, reply, now, timeout
	if p.perTask.Load() {
		return p.submitPerTaskLocked(t)
	}
	if p.size == 0 && p.inline != nil && !p.closed {
		p.mu.Unlock()
		return p.submitInline(t)
	}
	w, err := p.submitLocked(t)
	if err != nil {
		p.freeLocked(t)
	}
	p.mu.Unlock()
	if w != nil {
		w.wake <- t // never blocks: w was idle, and only we took it off the list
	}
	return err
}

// submitLocked queues t, or hands it to an idle worker, which it returns
// (the caller sends t on its wake channel after unlocking). Callers hold mu.
func (p *Pool) submitLocked(t *task) (*worker, error) {
	if p.closed {
		return nil, ErrClosed
	}
	if n := len(p.idle); n > 0 {
		// Idle workers exist only while the queue is empty, so FIFO holds.
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		w.idle, w.assigned = false, true
		p.submitted++
		p.running++
		return w, nil
	}
	if p.maxQ > 0 && p.queued >= int64(p.maxQ) {
		p.rejected++
		return nil, ErrQueueFull
	}
	t.state = stWaiting
	p.queue.push(t)
	p.watchLocked(t)
	p.submitted++
	p.queued++
	return nil, nil
}

// Do submits fn and waits until it has run (or was dropped), returning the
// error done would get: nil, *PanicError, ErrClosed, or Submit's error.
// Calling Do from inside a task can deadlock a pool with no free worker, and
// calling it on the Inline executor's goroutine at size 0 always deadlocks
// (the task would queue behind its caller).
//
// Do allocates nothing: its reply channel comes from a free list.
func (p *Pool) Do(fn func()) error {
	if fn == nil {
		panic("pool: Do of nil func")
	}
	ch := replies.Get().(chan error)
	if err := p.submitTask(fn, nil, nil, nil, ch, p.taskTimeout); err != nil {
		replies.Put(ch)
		return err
	}
	err := <-ch
	replies.Put(ch)
	return err
}

// Inlines reports whether size 0 runs tasks (Options.Inline was given);
// without it, tasks submitted at size 0 wait in the queue until a resize.
func (p *Pool) Inlines() bool { return p.inline != nil }

// Resize sets the number of workers to n, 0..MaxSize (ErrSize otherwise;
// ErrClosed after Close). It returns at once without waiting for tasks.
//
// Growing first clears Retiring on workers a previous shrink marked (lowest
// slot first), then starts workers in the lowest free slots; each new worker
// takes a queued task at once. Shrinking marks workers Retiring: idle ones
// first, then busy ones, highest slot first in each group. An idle retiree
// exits at once; a busy one exits after its current task. Resizing to 0 with
// Options.Inline set hands every queued task to Inline, in order; growing
// from 0 takes back the tasks Inline has not started, in order, ahead of
// any queued since (their wrappers, when Inline runs them, do nothing), so
// no task waits on a Loop that a task holds while workers are free.
func (p *Pool) Resize(n int) error {
	if n < 0 || n > MaxSize {
		return fmt.Errorf("%w: %d", ErrSize, n)
	}
	p.inlineMu.Lock()
	defer p.inlineMu.Unlock()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	if n > 0 {
		p.unhandLocked()
	}
	p.resizeLocked(n)
	var hand []*task
	if n == 0 && p.inline != nil && p.queue.len() > 0 {
		hand = make([]*task, 0, p.queue.len())
		for t := p.popLocked(); t != nil; t = p.popLocked() {
			t.state, t.loop = stPending, true
			p.pending.pushBack(t)
			hand = append(hand, t)
		}
	}
	p.mu.Unlock()
	for _, t := range hand {
		p.inline(func() { p.runInline(t) })
	}
	p.adjustProcs()
	return nil
}

// resizeLocked is the one place the worker set changes size. It does at most
// 2*MaxSize steps. Callers hold mu and have checked n and closed.
func (p *Pool) resizeLocked(n int) {
	switch {
	case n > p.size:
		need := n - p.size
		for s := 0; s < MaxSize && need > 0; s++ {
			if w := p.slots[s]; w != nil && w.retiring {
				w.retiring = false
				need--
			}
		}
		var fresh []*worker // new idle workers, lowest slot first
		for s := 0; s < MaxSize && need > 0; s++ {
			if p.slots[s] != nil {
				continue
			}
			need--
			p.gen++
			w := &worker{slot: s, gen: p.gen, started: p.now(),
				wake: make(chan *task, 1), runAcct: &runAcct{cpuOK: cpuclock.Known}}
			p.slots[s] = w
			t := p.popLocked()
			if t != nil {
				p.queued--
				p.running++
				w.assigned = true
			} else {
				w.idle = true
				fresh = append(fresh, w)
			}
			p.wg.Add(1)
			go p.work(w, t)
		}
		// The idle list hands out its last entry first. New workers go to
		// its front, lowest slot last among them, so workers already idle
		// are used first and light load lands on slot 0, 1, ...
		if len(fresh) > 0 {
			slices.Reverse(fresh)
			p.idle = append(fresh, p.idle...)
		}
	case n < p.size:
		need := p.size - n
		for s := MaxSize - 1; s >= 0 && need > 0; s-- {
			if w := p.slots[s]; w != nil && w.idle {
				p.removeIdle(w)
				p.slots[s] = nil
				w.wake <- nil // exits at once
				need--
			}
		}
		for s := MaxSize - 1; s >= 0 && need > 0; s-- {
			if w := p.slots[s]; w != nil && !w.retiring {
				w.retiring = true // exits after its task (it is busy)
				need--
			}
		}
	}
	p.size = n
}

// removeIdle takes w off the idle list. Callers hold mu.
func (p *Pool) removeIdle(w *worker) {
	for i, x := range p.idle {
		if x == w {
			copy(p.idle[i:], p.idle[i+1:])
			p.idle[len(p.idle)-1] = nil
			p.idle = p.idle[:len(p.idle)-1]
			break
		}
	}
	w.idle = false
}

// Close stops accepting tasks (Submit and Resize return ErrClosed), calls
// done(ErrClosed) for every task not yet started (queued, or handed to Inline
// and not started; they count as Failed), then waits for running tasks,
// their done callbacks, every worker goroutine and every armed timeout. It
// does not wait for abandoned goroutines (Go cannot stop them; each exits
// when its task returns): stuck workers are abandoned at once, and a task
// that times out while Close waits is abandoned whatever the cap, as a
// closed pool starts no replacement. So a task with a timeout holds Close
// up no longer than its timeout; one without can hold it forever. Safe to
// call twice and concurrently; every call returns when all is down.
// Calling Close from a task or a done callback deadlocks.
func (p *Pool) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.closeDone
		return
	}
	p.closed = true
	var dropped []*task
	for t := p.popLocked(); t != nil; t = p.popLocked() {
		t.state = stDropped
		dropped = append(dropped, t)
	}
	for _, t := range p.pending.drain() {
		t.state = stDropped
		dropped = append(dropped, t)
	}
	p.queued -= int64(len(dropped))
	p.failed += int64(len(dropped))
	for _, w := range p.idle {
		w.idle = false
		p.slots[w.slot] = nil
		w.wake <- nil
	}
	clear(p.idle)
	p.idle = p.idle[:0]
	for _, w := range p.slots {
		if w != nil && w.stuck {
			p.abandonLocked(w)
		}
	}
	p.mu.Unlock()
	p.adjustProcs()
	for _, t := range dropped {
		t.unwatch()
		t.report(ErrClosed)
	}
	p.wg.Wait()
	p.timerWG.Wait()
	p.inlineWG.Wait()
	close(p.closeDone)
}
