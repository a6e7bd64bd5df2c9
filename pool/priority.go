package pool

import (
	"errors"
	"runtime"
)

// Priority workers: while they are on (Options.Priority, SetPriority),
// every worker goroutine locks itself to its OS thread for the rest of its
// life and lowers that thread's priority (Linux: nice 19), and the pool
// raises GOMAXPROCS by its size, so the rest of the process (the Loop, a
// server's handlers) keeps as many Ps as it had without the pool and the
// kernel gives their threads the CPU before the workers'. A thread's
// priority cannot be raised back without privilege, so a worker never
// unlocks a lowered thread: a worker that exits (retiring, Close, a panic,
// priority turned off) ends locked, and the runtime ends its thread with
// it; when priority is turned off, each worker hands its next task to a
// fresh goroutine on an ordinary thread and exits. Workers idle at the
// switch change at their next task. Counts, resize and latency are as
// without the option; a hand-off to an idle priority worker wakes its own
// thread (a few us) instead of any. The kernel ranks the workers below
// every thread on the machine at nice 0, not only the process's own: on
// a machine busy with other work they may get little CPU.

// ErrPriorityUnavailable is returned by New and SetPriority when this OS
// gives no way to lower a thread's priority (everywhere but Linux).
var ErrPriorityUnavailable = errors.New("pool: priority workers unavailable on " + runtime.GOOS)

// PriorityAvailable reports whether this OS has priority workers (Linux).
func PriorityAvailable() bool { return priorityKnown }

// SetPriority turns priority workers on or off (see Options.Priority). It
// fails with ErrPriorityUnavailable, changing nothing, where the OS has no
// thread priorities; turning it off never fails. It changes GOMAXPROCS
// (and so ends the runtime's own updates of it, as any
// runtime.GOMAXPROCS call does).
func (p *Pool) SetPriority(on bool) error {
	if on && !priorityKnown {
		return ErrPriorityUnavailable
	}
	p.priority.Store(on)
	p.adjustProcs()
	return nil
}

// Priority reports whether priority workers are on.
func (p *Pool) Priority() bool { return p.priority.Load() }

// ExtraProcs is how many Ps the pool has added to GOMAXPROCS: its size
// while priority workers are on, else 0.
func (p *Pool) ExtraProcs() int {
	p.procsMu.Lock()
	defer p.procsMu.Unlock()
	return p.extra
}

// BaseProcs is GOMAXPROCS without the Ps the pool added: GOMAXPROCS
// itself while priority is off, or when someone else has set it since
// the pool last did.
func (p *Pool) BaseProcs() int {
	p.procsMu.Lock()
	defer p.procsMu.Unlock()
	cur := runtime.GOMAXPROCS(0)
	if cur == p.procsSet {
		return cur - p.extra
	}
	return cur
}

// adjustProcs sets GOMAXPROCS to the base (the value without the pool's
// Ps) plus the size while priority is on and the pool open. The base is
// GOMAXPROCS minus the Ps the pool added, or, when someone else has set
// GOMAXPROCS since the pool last did, the value they set.
func (p *Pool) adjustProcs() {
	p.procsMu.Lock()
	defer p.procsMu.Unlock()
	p.mu.Lock()
	want := 0
	if p.priority.Load() && !p.closed {
		want = procsFor(p.size)
	}
	p.mu.Unlock()
	if want == p.extra && want == 0 {
		return
	}
	cur := runtime.GOMAXPROCS(0)
	base := cur
	if cur == p.procsSet {
		base = cur - p.extra
	}
	if n := max(base+want, 1); n != cur {
		runtime.GOMAXPROCS(n)
		cur = n
	}
	p.extra, p.procsSet = want, cur
}

// procsFor is how many Ps priority workers at size n add.
var procsFor = func(n int) int { return n }

// How a priority worker lowers its thread: nice 19 (kept), or the
// alternatives the pool's benchmarks compare (SCHED_IDLE; none, GOMAXPROCS
// alone).
const (
	lowerNice = iota
	lowerIdle
	lowerNone
)

// lowerMode is lowerNice; benchmarks set the others.
var lowerMode = lowerNice

// forcePriority makes New start every pool with priority workers: the
// package's tests set it from OFFTOP_POOL_PRIORITY=1 to run them all so.
var forcePriority bool
