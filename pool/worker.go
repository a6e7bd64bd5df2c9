package pool

import (
	"time"
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
	// spare is the last task this worker finished and reported, which no
	// one refers to any more: the worker's goroutine sets it, and hands it
	// to Pool.free under Pool.mu at its next finish.
	spare *task

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
// goroutine wake-up, while a worker draining a backlog makes no syscall
// per task; Stats reads the clock of each worker in a run from outside
// (cpuclock.Thread), once per call. A run costs three syscalls (gettid and
// a clock read at its start, a clock read at its end), paid when an idle
// worker is woken, never between back-to-back tasks, and none after a
// streak of runs shorter than shortRun (see shortStreak). Why not per task, nor
// locked for life: docs/internals.md.
func (p *Pool) work(w *worker, t *task) {
	defer p.recoverInternal()
	var th threadLock
	spill := new(latBuf) // a full batch of w.lat, recorded by this goroutine
	counted := true      // this goroutine counts in p.wg
	defer func() {
		if th.locked {
			w.endRun(p.clock(), &th)
		}
		p.flushLat(w) // a retiring slot's latencies are not lost
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
					w.endRun(p.clock(), &th)
				}
				t = <-w.wake
			}
			if t == nil {
				return
			}
		}
		if want := p.priority.Load(); want && !th.pinned {
			th.pin() // refused by the OS: the worker goes on as it is
		} else if !want && th.pinned {
			// Priority is off and this thread's cannot be raised back:
			// a fresh goroutine, on an ordinary thread, takes t and the
			// slot; this one ends locked, and its thread with it.
			if th.locked {
				w.endRun(p.clock(), &th)
			}
			p.wg.Add(1) // this goroutine still counts: Close cannot be waiting on zero
			go p.work(w, t)
			return
		}
		var exit, abandoned bool
		if t, exit, abandoned = p.runOnWorker(w, &th, spill, t); exit {
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
func (p *Pool) runOnWorker(w *worker, th *threadLock, spill *latBuf, t *task) (next *task, exit, abandoned bool) {
	ok := false
	start := p.clock()
	if !th.locked {
		w.beginRun(start, th)
	}
	var timer *time.Timer // armed while t runs with a timeout
	if t.timeout > 0 {
		p.timerWG.Add(1)
		timer = time.AfterFunc(t.timeout, func() {
			defer p.recoverInternal()
			defer p.timerWG.Done()
			p.expire(w, t, start)
		})
	}
	free := t.unwatch() // nothing but this goroutine will refer to t
	var terr error      // what t returned
	defer func() {
		err := terr
		if !ok {
			err = panicError(recover())
		}
		end := p.clock()
		if !ok {
			// This goroutine ends; its run must end before the
			// replacement (sharing w) can begin one.
			w.endRun(end, th)
		}
		var late bool
		next, exit, late, abandoned = p.finishOnWorker(w, t, err, !ok, start, end, spill)
		stopped := timer != nil && timer.Stop()
		if stopped {
			p.timerWG.Done() // its function will not run
		}
		if late {
			return // expire counted, recorded and reported t
		}
		if spill.n > 0 {
			p.recordTimes(spill.ts[:spill.n])
			spill.n = 0
		}
		if exit {
			// A Stats after the report sees t's latency: this goroutine's
			// exit would record it only later.
			p.flushLat(w)
		}
		t.report(err)
		if !exit && (timer == nil || stopped) && free {
			// Nothing else refers to t now: freed at this worker's next
			// finish. (On exit w may already belong to a replacement.)
			w.spare = t
		}
	}()
	terr = t.call()
	ok = true
	return nil, false, false
}

// recoverInternal, deferred by the pool's own goroutines (workers, timeout
// timers), hands a panic that is not a task's (a done callback's, or the
// pool's own bug) to Options.PanicHandler; the goroutine then ends, its
// defers run. Without a handler it does not recover: the panic crashes the
// program as an unrecovered one does.
func (p *Pool) recoverInternal() {
	if p.onPanic == nil {
		return
	}
	if v := recover(); v != nil {
		p.onPanic(v)
	}
}

// finishOnWorker counts the task w just ran (Failed when err is not nil)
// and decides what w does next. After a panic the current goroutine must
// end, so a fresh goroutine takes the slot with the next task, and exit is
// true. late reports that t had timed
// out (expire counted it; nothing is counted here); abandoned, that expire
// also gave the slot away: this goroutine just exits.
func (p *Pool) finishOnWorker(w *worker, t *task, err error, panicked bool, start, end int64, spill *latBuf) (next *task, exit, late, abandoned bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w.spare != nil {
		p.freeLocked(w.spare)
		w.spare = nil
	}
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
		w.lat.addLocked(t, start, end, spill)
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
	if panicked {
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
	if t := p.popLocked(); t != nil {
		p.queued--
		p.running++
		w.assigned = true
		return t
	}
	w.idle = true
	p.idle = append(p.idle, w)
	return nil
}
