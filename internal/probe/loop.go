package probe

import (
	"sync"
	"sync/atomic"
	"time"

	guard "github.com/offtop/offtop/internal/crash"
)

// Loop is one goroutine that runs posted callbacks one at a time, in the
// order they were posted: offtop's counterpart of Node's main thread. A
// callback that blocks or spins blocks every callback behind it, which is
// what the Loop-delay probe measures.
//
// All methods are safe for concurrent use. A callback must not call Do or
// Close on its own Loop: both wait for the Loop, which is busy running that
// callback, and never return.
type Loop struct {
	wake chan struct{} // 1-buffered: "the queue may be non-empty or closed"
	done chan struct{} // closed when the goroutine has exited for good

	mu      sync.Mutex // guards the fields below
	q       []task     // pending callbacks are q[head:]
	head    int
	closed  bool
	running bool      // a callback is in progress on the Loop
	cur     task      // the callback in progress
	start   time.Time // when it started
	busy    time.Duration
	ran     int64
	panics  int64

	// Callbacks posted after Close, run on their own goroutines.
	lateRan, latePanics atomic.Int64
}

// task is a queued callback. done, when not nil, is closed once fn has run
// and has been counted (Do waits on it).
type task struct {
	fn   func()
	done chan struct{}
}

// compactAt is the queue head index beyond which the Loop moves the pending
// callbacks to the front of the slice, once they are at most half of it, so
// that a queue that never fully drains does not grow without bound.
const compactAt = 1024

// NewLoop starts a Loop. Close stops it.
func NewLoop() *Loop {
	l := &Loop{
		wake: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
	go l.run()
	return l
}

// Post queues fn to run on the Loop after every callback posted before it.
// It never blocks: the queue is unbounded. A fn that panics is recovered and
// counted in LoopStats.Panics.
//
// After Close, fn is not lost: it runs on a fresh goroutine of its own (so
// neither FIFO order nor one-at-a-time holds for it), is counted in Ran and
// Panics, and not in Busy. Post panics if fn is nil.
func (l *Loop) Post(fn func()) {
	if fn == nil {
		panic("probe: Loop.Post of nil func")
	}
	l.post(task{fn: fn})
}

func (l *Loop) post(t task) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		go l.runLate(t)
		return
	}
	l.q = append(l.q, t)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Do posts fn and waits until it has run and is counted in Stats (or
// panicked: the panic is recovered and counted by the Loop, not re-raised in
// the caller). Do must not be called from a callback running on the same
// Loop.
func (l *Loop) Do(fn func()) {
	if fn == nil {
		panic("probe: Loop.Do of nil func")
	}
	done := make(chan struct{})
	l.post(task{fn: fn, done: done})
	<-done
}

// Stats returns a copy of the Loop's counters.
func (l *Loop) Stats() LoopStats {
	now := time.Now()
	l.mu.Lock()
	s := LoopStats{
		Busy:   l.busy,
		Queued: len(l.q) - l.head,
		Ran:    l.ran,
		Panics: l.panics,
	}
	if l.running {
		s.Busy += now.Sub(l.start)
	}
	l.mu.Unlock()
	s.Ran += l.lateRan.Load()
	s.Panics += l.latePanics.Load()
	return s
}

// Close runs the callbacks already queued, then stops the Loop and waits for
// its goroutine to exit. It is safe to call more than once and from several
// goroutines; every call returns once the Loop has stopped.
func (l *Loop) Close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	<-l.done
}

// run is the Loop's goroutine. If a callback calls runtime.Goexit the
// goroutine cannot be saved; its deferred function starts a replacement, so
// the Loop goes on.
func (l *Loop) run() {
	defer guard.Recover() // a bug here reaches offtop's crash handler: terminal restored
	exited := false
	defer func() {
		if exited {
			close(l.done)
			return
		}
		// runtime.Goexit in a callback: account for it as a failed callback
		// and carry on in a new goroutine.
		l.mu.Lock()
		done := l.finish(time.Now(), true)
		l.mu.Unlock()
		if done != nil {
			close(done)
		}
		go l.run()
	}()
	l.mu.Lock()
	for {
		for l.head == len(l.q) {
			if l.closed {
				l.mu.Unlock()
				exited = true
				return
			}
			l.mu.Unlock()
			<-l.wake
			l.mu.Lock()
		}
		t := l.pop()
		l.running = true
		l.cur = t
		l.start = time.Now()
		l.mu.Unlock()

		panicked := call(t.fn)

		end := time.Now()
		l.mu.Lock()
		if done := l.finish(end, panicked); done != nil {
			l.mu.Unlock()
			close(done)
			l.mu.Lock()
		}
	}
}

// pop removes and returns the oldest pending callback. Callers hold mu and
// have checked that the queue is not empty.
func (l *Loop) pop() task {
	t := l.q[l.head]
	l.q[l.head] = task{} // let the closure be collected
	l.head++
	switch {
	case l.head == len(l.q):
		l.q = l.q[:0]
		l.head = 0
	case l.head >= compactAt && 2*l.head >= len(l.q):
		n := copy(l.q, l.q[l.head:])
		clear(l.q[n:])
		l.q = l.q[:n]
		l.head = 0
	}
	return t
}

// finish accounts for the callback in progress, ended at end, and returns
// the channel to close for its Do, if any. Callers hold mu.
func (l *Loop) finish(end time.Time, panicked bool) (done chan struct{}) {
	if !l.running {
		return nil
	}
	l.busy += end.Sub(l.start)
	l.running = false
	l.ran++
	if panicked {
		l.panics++
	}
	done = l.cur.done
	l.cur = task{}
	return done
}

// runLate runs a callback posted after Close on the calling goroutine. A
// runtime.Goexit in fn is counted as a panic, as on the Loop.
func (l *Loop) runLate(t task) {
	defer guard.Recover() // a bug here reaches offtop's crash handler: terminal restored
	ok := false
	defer func() {
		l.lateRan.Add(1)
		if !ok {
			l.latePanics.Add(1)
		}
		if t.done != nil {
			close(t.done)
		}
	}()
	ok = !call(t.fn)
}

// call runs fn and reports whether it panicked; the panic is recovered.
// On runtime.Goexit, call does not return (its caller's defers run).
func call(fn func()) (panicked bool) {
	returned := false
	defer func() {
		if !returned {
			// recover is nil during runtime.Goexit, which goes on regardless.
			if recover() != nil {
				panicked = true
			}
		}
	}()
	fn()
	returned = true
	return false
}
