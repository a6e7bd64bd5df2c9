package pool

import (
	"errors"
	"fmt"
	guard "github.com/offtop/offtop/internal/crash"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/offtop/offtop/internal/hist"
)

// DefaultWindow is the latency window used when Options.Window is 0.
const DefaultWindow = 5 * time.Second

// DefaultMaxAbandoned is the cap on abandoned goroutines used when
// Options.MaxAbandoned is 0.
const DefaultMaxAbandoned = 64

// errGoexit is the PanicError value of a task that called runtime.Goexit.
var errGoexit = errors.New("pool: task called runtime.Goexit")

// Pool is a resizable FIFO worker pool. Create it with New; all methods are
// safe for concurrent use. A Pool must be closed with Close, which waits for
// its goroutines.
//
// Locks, always taken in this order (never the other way round):
//
//   - inlineMu serializes hand-offs to Options.Inline (Submit at size 0 and
//     Resize), so the executor receives tasks in FIFO order. It is held
//     while calling Inline, never while a task runs.
//   - mu guards every count, the queue, the slots and every worker's
//     scheduling fields (idle, assigned, retiring, stuck, abandoned,
//     per-slot counts), every task's state, the list of tasks handed to
//     Inline and not yet started, size and closed. Nothing slow runs under
//     it: no task, no callback, no syscall.
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
type Pool struct {
	now    func() time.Time
	inline func(fn func())
	maxQ   int

	taskTimeout  time.Duration // Options.TaskTimeout; 0 = none
	maxAbandoned int64         // cap on abandoned; 0 = none may be

	wait, run, total *hist.Recorder

	inlineMu sync.Mutex

	mu     sync.Mutex
	closed bool
	size   int              // target size = live workers not retiring
	slots  [MaxSize]*worker // live workers (retiring included) by slot
	idle   []*worker        // idle workers; the last gets the next task
	queue  fifo             // tasks waiting for a worker
	// pending lists tasks handed to Inline and not yet started.
	pending taskList
	gen     uint64 // last worker generation handed out
	// Counts, as in Stats; queued includes pending.
	submitted, completed, failed, timedOut, running, queued int64
	rejected, replaced, abandoned, stuck                    int64

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
}

// task is one submitted function. Its scheduling fields are guarded by
// Pool.mu; fn, done, submitted and timeout are set before it is shared;
// timer belongs to the worker goroutine running the task.
type task struct {
	fn        func()
	done      func(error)
	submitted time.Time
	timeout   time.Duration // run-time limit on a worker; 0 = none
	timer     *time.Timer   // armed while the task runs with a timeout

	state      taskState
	prev, next *task // links in Pool.pending
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

// worker is one goroutine's hold on a slot. A slot started by New or
// Resize gets a new worker and a new runAcct. A goroutine replaced after a
// panic keeps its worker (the old goroutine has ended); one replaced after a
// timeout is abandoned, still running, so the replacement is a new worker
// sharing the slot's gen, counts and runAcct.
type worker struct {
	slot    int
	gen     uint64
	started time.Time
	wake    chan *task // cap 1: one send per idle period; nil means exit

	// Guarded by Pool.mu.
	idle      bool // in Pool.idle
	assigned  bool // has a task (handed over or in progress)
	retiring  bool
	stuck     bool // its task timed out at the MaxAbandoned cap; it keeps the slot
	abandoned bool // its task timed out and it left the slot (not in wg)
	completed int64
	failed    int64
	timedOut  int64

	*runAcct
}

// runAcct is a slot life's busy and on-CPU accounting. A run is a stretch
// of back-to-back tasks: from the start of a task taken while idle to the
// moment the worker finds no next task (or exits). mu guards the fields, so
// that Stats never reads the CPU clock of a thread the run has left.
type runAcct struct {
	mu       sync.Mutex
	inRun    bool
	run      uint64        // number of the run in progress (or last begun)
	runStart time.Time     // start of the run in progress
	tid      int           // its OS thread (0: not known)
	cpu0     time.Duration // that thread's CPU clock at run start
	cpu0OK   bool          // cpu0 was read
	busy     time.Duration // wall time of finished runs
	onCPU    time.Duration // thread CPU time of finished runs
	cpuOK    bool          // every thread clock read at run end succeeded
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
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	switch {
	case o.MaxAbandoned == 0:
		o.MaxAbandoned = DefaultMaxAbandoned
	case o.MaxAbandoned < 0:
		o.MaxAbandoned = 0
	}
	p := &Pool{
		now:          o.Now,
		inline:       o.Inline,
		maxQ:         o.MaxQueue,
		taskTimeout:  max(o.TaskTimeout, 0),
		maxAbandoned: int64(o.MaxAbandoned),
		wait:         hist.NewRecorder(o.Window, o.Now),
		run:          hist.NewRecorder(o.Window, o.Now),
		total:        hist.NewRecorder(o.Window, o.Now),

		closeDone: make(chan struct{}),
	}
	p.mu.Lock()
	p.resizeLocked(o.Size)
	p.mu.Unlock()
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
// until the task returns). A task run by Options.Inline has no timeout.
func (p *Pool) SubmitTimeout(fn func(), timeout time.Duration, done func(err error)) error {
	return p.submit(fn, max(timeout, 0), done)
}

func (p *Pool) submit(fn func(), timeout time.Duration, done func(err error)) error {
	if fn == nil {
		panic("pool: Submit of nil func")
	}
	t := &task{fn: fn, done: done, submitted: p.now(), timeout: timeout}
	if p.perTask.Load() {
		return p.submitPerTask(t)
	}
	p.mu.Lock()
	if p.size == 0 && p.inline != nil && !p.closed {
		p.mu.Unlock()
		return p.submitInline(t)
	}
	w, err := p.submitLocked(t)
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
	p.queue.push(t)
	p.submitted++
	p.queued++
	return nil, nil
}

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
	p.submitted++
	p.queued++
	t.state = stPending
	p.pending.pushBack(t)
	p.mu.Unlock()
	p.inline(func() { p.runInline(t) })
	return nil
}

// Do submits fn and waits until it has run (or was dropped), returning the
// error done would get: nil, *PanicError, ErrClosed, or Submit's error.
// Calling Do from inside a task can deadlock a pool with no free worker, and
// calling it on the Inline executor's goroutine at size 0 always deadlocks
// (the task would queue behind its caller).
func (p *Pool) Do(fn func()) error {
	ch := make(chan error, 1)
	if err := p.Submit(fn, func(err error) { ch <- err }); err != nil {
		return err
	}
	return <-ch
}

// Resize sets the number of workers to n, 0..MaxSize (ErrSize otherwise;
// ErrClosed after Close). It returns at once without waiting for tasks.
//
// Growing first clears Retiring on workers a previous shrink marked (lowest
// slot first), then starts workers in the lowest free slots; each new worker
// takes a queued task at once. Shrinking marks workers Retiring: idle ones
// first, then busy ones, highest slot first in each group. An idle retiree
// exits at once; a busy one exits after its current task. Resizing to 0 with
// Options.Inline set hands every queued task to Inline, in order; tasks
// handed to Inline stay there when the pool grows again.
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
	p.resizeLocked(n)
	var hand []*task
	if n == 0 && p.inline != nil && p.queue.len() > 0 {
		hand = make([]*task, 0, p.queue.len())
		for t := p.queue.pop(); t != nil; t = p.queue.pop() {
			t.state = stPending
			p.pending.pushBack(t)
			hand = append(hand, t)
		}
	}
	p.mu.Unlock()
	for _, t := range hand {
		p.inline(func() { p.runInline(t) })
	}
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
				wake: make(chan *task, 1), runAcct: &runAcct{cpuOK: onCPUKnown}}
			p.slots[s] = w
			t := p.queue.pop()
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

// work is a worker goroutine: it runs t (if any), then whatever the queue
// or a Submit hands it, until it retires, the pool closes, or a task panics
// (then a fresh goroutine takes over the slot) or times out (then this
// goroutine was abandoned: it exits when the task returns, without calling
// wg.Done, which expire did for it).
//
// A run of back-to-back tasks happens locked to one OS thread, so its
// thread CPU clock can be read at the start and end of the run, and from
// Stats in between. The run ends, and the thread is unlocked, before the
// worker waits for work: a hand-off to an idle worker stays an ordinary
// goroutine wake-up (STACK.md), while a worker draining a backlog makes no
// syscall per task. (Lock, gettid and clock reads around every task cost 3
// syscalls per task, ~2 us each on the 2-core VM this was measured on, and
// they did not run in parallel: BenchmarkDispatch/offtop-2workers (bench/) read 4.7 us
// per task that way, 0.9 us with one lock per run.)
func (p *Pool) work(w *worker, t *task) {
	defer guard.Recover() // a bug here reaches offtop's crash handler: terminal restored
	var th threadLock
	counted := true // this goroutine counts in p.wg
	defer func() {
		if th.locked {
			w.endRun(p.now(), &th)
		}
		if counted {
			p.wg.Done()
		}
	}()
	for {
		if t == nil {
			handed := false
			select {
			case t = <-w.wake: // handed a task while finishing the last one
				handed = true
			default:
			}
			if !handed {
				if th.locked {
					w.endRun(p.now(), &th)
				}
				t = <-w.wake
			}
			if t == nil {
				return
			}
		}
		var exit, abandoned bool
		if t, exit, abandoned = p.runOnWorker(w, &th, t); exit {
			counted = !abandoned
			return
		}
	}
}

// runOnWorker runs t on w's goroutine, starting a run if none is in
// progress, and arms t's timeout if it has one. It returns the next task
// (nil: wait for one) or exit; abandoned means expire abandoned this
// goroutine (t timed out), which must then exit without wg.Done. A panic or
// runtime.Goexit in the task is handled in the deferred function, which ends
// the run and starts a replacement goroutine for the slot.
func (p *Pool) runOnWorker(w *worker, th *threadLock, t *task) (next *task, exit, abandoned bool) {
	ok := false
	start := p.now()
	if !th.locked {
		w.beginRun(start, th)
	}
	if t.timeout > 0 {
		p.timerWG.Add(1)
		t.timer = time.AfterFunc(t.timeout, func() {
			defer guard.Recover()
			defer p.timerWG.Done()
			p.expire(w, t, start)
		})
	}
	defer func() {
		var err error
		if !ok {
			err = panicError(recover())
		}
		end := p.now()
		if err != nil {
			// This goroutine ends; its run must end before the
			// replacement (sharing w) can begin one.
			w.endRun(end, th)
		}
		var late bool
		next, exit, late, abandoned = p.finishOnWorker(w, t, err)
		if t.timer != nil && t.timer.Stop() {
			p.timerWG.Done() // its function will not run
		}
		if late {
			return // expire counted, recorded and reported t
		}
		p.record(t, start, end)
		if t.done != nil {
			t.done(err)
		}
	}()
	t.fn()
	ok = true
	return nil, false, false
}

// panicError wraps what recover returned. recover returns nil in a deferred
// call only when the task called runtime.Goexit (panic(nil) panics with
// *runtime.PanicNilError since Go 1.21).
func panicError(r any) error {
	if r == nil {
		r = errGoexit
	}
	return &PanicError{Value: r, Stack: debug.Stack()}
}

// finishOnWorker counts the task w just ran and decides what w does next.
// On failure the current goroutine must end, so a fresh goroutine takes the
// slot with the next task, and exit is true. late reports that t had timed
// out (expire counted it; nothing is counted here); abandoned, that expire
// also gave the slot away: this goroutine just exits.
func (p *Pool) finishOnWorker(w *worker, t *task, err error) (next *task, exit, late, abandoned bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.state == stTimedOut {
		if w.abandoned {
			p.abandoned--
			return nil, true, true, true
		}
		// Stuck at the cap: the slot waited for this task; go on.
		w.stuck = false
		p.stuck--
		late = true
	} else {
		t.state = stFinished
		p.running--
		if err != nil {
			p.failed++
			w.failed++
		} else {
			p.completed++
			w.completed++
		}
	}
	w.assigned = false
	if w.retiring || p.closed {
		p.slots[w.slot] = nil
		return nil, true, late, false
	}
	next = p.takeLocked(w)
	if err != nil {
		p.replaced++
		p.wg.Add(1)
		go p.work(w, next)
		return nil, true, late, false
	}
	return next, false, late, false
}

// takeLocked gives free worker w the oldest queued task, which it returns,
// or puts w on the idle list and returns nil. Callers hold mu.
func (p *Pool) takeLocked(w *worker) *task {
	if t := p.queue.pop(); t != nil {
		p.queued--
		p.running++
		w.assigned = true
		return t
	}
	w.idle = true
	p.idle = append(p.idle, w)
	return nil
}

// expire is t's timer function: t, started on w at start, ran past its
// timeout, unless it has returned meanwhile (then expire does nothing). It
// counts t TimedOut, records its latency up to now and calls done with
// ErrTimeout. Under the MaxAbandoned cap (or once the pool is closed) w's
// goroutine is abandoned: it leaves the slot and the wait group, and a new
// worker sharing the slot's accounting takes the slot at once (unless w was
// retiring or the pool is closed). At the cap, w keeps the slot, stuck.
func (p *Pool) expire(w *worker, t *task, start time.Time) {
	p.mu.Lock()
	if t.state != stQueued { // returned first
		p.mu.Unlock()
		return
	}
	t.state = stTimedOut
	p.running--
	p.timedOut++
	w.timedOut++
	var fresh *worker
	var next *task
	if p.closed || p.abandoned < p.maxAbandoned {
		p.abandonLocked(w)
		if !p.closed && !w.retiring {
			fresh = &worker{slot: w.slot, gen: w.gen, started: w.started,
				wake: make(chan *task, 1), runAcct: w.runAcct,
				completed: w.completed, failed: w.failed, timedOut: w.timedOut}
			p.slots[w.slot] = fresh
			next = p.takeLocked(fresh)
			p.replaced++
			p.wg.Add(1)
		}
	} else {
		w.stuck = true
		p.stuck++
	}
	p.mu.Unlock()
	end := p.now()
	if fresh != nil {
		// End the abandoned goroutine's run in the slot's accounting
		// before the replacement can begin one there.
		w.detach(end)
		go p.work(fresh, next)
	}
	p.record(t, start, end)
	if t.done != nil {
		t.done(fmt.Errorf("%w: ran past %v", ErrTimeout, t.timeout))
	}
}

// abandonLocked takes w's goroutine, whose task timed out, out of its slot
// and out of wg: it is left to run until its task returns. Callers hold mu.
func (p *Pool) abandonLocked(w *worker) {
	if w.stuck {
		w.stuck = false
		p.stuck--
	}
	w.abandoned = true
	w.assigned = false
	p.abandoned++
	p.slots[w.slot] = nil
	p.wg.Done()
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

	ok := false
	start := p.now()
	defer func() {
		var err error
		if !ok {
			err = panicError(recover())
		}
		end := p.now()
		p.mu.Lock()
		p.running--
		if err != nil {
			p.failed++
		} else {
			p.completed++
		}
		p.mu.Unlock()
		p.record(t, start, end)
		if t.done != nil {
			t.done(err)
		}
		p.inlineWG.Done()
	}()
	t.fn()
	ok = true
}

// record adds one finished task to the latency recorders.
func (p *Pool) record(t *task, start, end time.Time) {
	p.wait.Record(int64(start.Sub(t.submitted)))
	p.run.Record(int64(end.Sub(start)))
	p.total.Record(int64(end.Sub(t.submitted)))
}

// ResetLatency empties the latency recorders (window and since-reset).
// Counts and busy times are not reset.
func (p *Pool) ResetLatency() {
	p.wait.Reset()
	p.run.Reset()
	p.total.Reset()
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
	for t := p.queue.pop(); t != nil; t = p.queue.pop() {
		t.state = stDropped
		dropped = append(dropped, t)
	}
	for t := p.pending.head; t != nil; t = p.pending.head {
		p.pending.remove(t)
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
	for _, t := range dropped {
		if t.done != nil {
			t.done(ErrClosed)
		}
	}
	p.wg.Wait()
	p.timerWG.Wait()
	p.inlineWG.Wait()
	close(p.closeDone)
}

// Stats returns a copy of the pool's counts, workers (by slot) and latency.
// The counts are read under one lock, so Submitted = Completed + Failed +
// TimedOut + Running + Queued holds exactly. Busy and OnCPU include the task in
// progress up to At. Stats reads the thread CPU clock of each worker in a
// run (one syscall each on Linux) and merges the latency windows, so call it
// a few times a second, not per task.
func (p *Pool) Stats() Stats {
	var ws [MaxSize]*worker
	p.mu.Lock()
	s := Stats{Size: p.size, Counts: p.countsLocked()}
	n := 0
	for _, w := range p.slots {
		if w != nil {
			ws[n] = w
			n++
		}
	}
	s.Workers = make([]WorkerStats, n)
	for i, w := range ws[:n] {
		s.Workers[i] = WorkerStats{Slot: w.slot, Started: w.started, gen: w.gen,
			Running: w.assigned, Retiring: w.retiring, Stuck: w.stuck,
			Completed: w.completed, Failed: w.failed, TimedOut: w.timedOut}
	}
	p.mu.Unlock()

	s.At = p.now()
	for i, w := range ws[:n] {
		w.read(s.At, &s.Workers[i])
	}
	s.Wait, s.Run, s.Total = p.wait.Window(), p.run.Window(), p.total.Window()
	s.WaitAll, s.RunAll, s.TotalAll = p.wait.Total(), p.run.Total(), p.total.Total()
	return s
}

// Counts returns the pool's counts, read under one lock, so the invariant
// on Counts holds exactly. It is cheap (no clock read, no histogram merge):
// call it as often as needed.
func (p *Pool) Counts() Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.countsLocked()
}

// countsLocked copies the counts. Callers hold mu.
func (p *Pool) countsLocked() Counts {
	return Counts{
		Submitted: p.submitted,
		Completed: p.completed,
		Failed:    p.failed,
		TimedOut:  p.timedOut,
		Running:   p.running,
		Queued:    p.queued,
		Rejected:  p.rejected,
		Replaced:  p.replaced,
		Abandoned: p.abandoned,
		Stuck:     p.stuck,
	}
}

// beginRun starts a run on the calling worker goroutine: it locks the
// goroutine to its OS thread and reads the thread's id and CPU clock.
func (w *runAcct) beginRun(start time.Time, th *threadLock) {
	th.acquire()
	cpu, ok := selfCPU()
	w.mu.Lock()
	w.run++
	th.run = w.run
	w.inRun, w.runStart, w.tid, w.cpu0, w.cpu0OK = true, start, th.tid, cpu, ok
	w.mu.Unlock()
}

// endRun ends the run the calling goroutine began with beginRun, adds its
// wall and CPU time, and unlocks the thread. After it Stats no longer reads
// that thread. When detach already ended that run (the goroutine was
// abandoned), it only unlocks the thread.
func (w *runAcct) endRun(end time.Time, th *threadLock) {
	cpu, ok := selfCPU()
	w.mu.Lock()
	if w.inRun && w.run == th.run {
		if d := end.Sub(w.runStart); d > 0 {
			w.busy += d
		}
		if ok && w.cpu0OK {
			if d := cpu - w.cpu0; d > 0 {
				w.onCPU += d
			}
		} else {
			w.cpuOK = false
		}
		w.inRun, w.tid = false, 0
	}
	w.mu.Unlock()
	th.release()
}

// detach ends the run in progress, if any, from another goroutine as of
// end: expire calls it for an abandoned goroutine, before the slot's
// replacement starts, so the slot counts the abandoned task up to its
// timeout and no further. The thread's CPU clock is read from outside, as
// read does.
func (w *runAcct) detach(end time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.inRun {
		return
	}
	if d := end.Sub(w.runStart); d > 0 {
		w.busy += d
	}
	cpuOK := false
	if w.tid != 0 && w.cpu0OK {
		if cpu, ok := threadCPU(w.tid); ok {
			cpuOK = true
			if d := cpu - w.cpu0; d > 0 {
				w.onCPU += d
			}
		}
	}
	if !cpuOK {
		w.cpuOK = false
	}
	w.inRun, w.tid = false, 0
}

// read fills the accounting fields of ws as of at, the run in progress
// included. While w.mu is held with inRun set the worker cannot leave its
// thread (endRun needs w.mu first), so reading that thread's CPU clock from
// here is safe.
func (w *runAcct) read(at time.Time, ws *WorkerStats) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ws.Busy, ws.OnCPU, ws.OnCPUKnown = w.busy, w.onCPU, w.cpuOK
	if !w.inRun {
		return
	}
	if d := at.Sub(w.runStart); d > 0 {
		ws.Busy += d
	}
	if w.tid != 0 && w.cpu0OK {
		if cpu, ok := threadCPU(w.tid); ok {
			if d := cpu - w.cpu0; d > 0 {
				ws.OnCPU += d
			}
		}
	}
}

// utilization implements Utilization.
func utilization(prev, cur Stats) (busy, onCPU []float64) {
	busy = make([]float64, len(cur.Workers))
	known := len(cur.Workers) > 0
	for _, w := range cur.Workers {
		known = known && w.OnCPUKnown
	}
	if known {
		onCPU = make([]float64, len(cur.Workers))
	}
	dt := cur.At.Sub(prev.At)
	if dt <= 0 {
		return busy, onCPU
	}
	j := 0 // prev.Workers is sorted by slot, like cur.Workers
	for i, w := range cur.Workers {
		for j < len(prev.Workers) && prev.Workers[j].Slot < w.Slot {
			j++
		}
		var pb, pc time.Duration
		if j < len(prev.Workers) && prev.Workers[j].Slot == w.Slot && prev.Workers[j].gen == w.gen {
			pb, pc = prev.Workers[j].Busy, prev.Workers[j].OnCPU
		}
		busy[i] = fraction(w.Busy-pb, dt)
		if known {
			onCPU[i] = fraction(w.OnCPU-pc, dt)
		}
	}
	return busy, onCPU
}

// fraction returns d/dt clamped to 0..1.
func fraction(d, dt time.Duration) float64 {
	f := float64(d) / float64(dt)
	switch {
	case f < 0 || f != f:
		return 0
	case f > 1:
		return 1
	}
	return f
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

// taskList is a doubly linked list of tasks (Pool.pending).
type taskList struct{ head, tail *task }

func (l *taskList) pushBack(t *task) {
	t.prev, t.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = t
	} else {
		l.head = t
	}
	l.tail = t
}

func (l *taskList) remove(t *task) {
	if t.prev != nil {
		t.prev.next = t.next
	} else {
		l.head = t.next
	}
	if t.next != nil {
		t.next.prev = t.prev
	} else {
		l.tail = t.prev
	}
	t.prev, t.next = nil, nil
}
