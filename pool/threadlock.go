package pool

import (
	"runtime"

	"github.com/offtop/offtop/internal/cpuclock"
)

// threadLock is a worker goroutine's hold on its OS thread. It is owned by
// that goroutine and never shared.
type threadLock struct {
	locked bool   // a run is in progress (see beginRun)
	tid    int    // the thread's id while locked (0 where cpuclock.Known is false)
	run    uint64 // the runAcct run this goroutine began (see beginRun)
	// clocked: the run in progress reads the thread's CPU clock at its
	// start and end, locked to the thread. short counts the runs in a row
	// shorter than shortRun; the next run is unclocked once it reaches
	// shortStreak. start is the run's start (Pool.clock).
	clocked bool
	short   int
	start   int64
	// pinned: the goroutine is locked to its thread for life, at a lowered
	// priority (priority.go); pinnedTid is that thread.
	pinned    bool
	pinnedTid int
}

// acquire marks a run as begun at start, clocked unless the last
// shortStreak runs were all shorter than shortRun; a
// clocked run locks the goroutine to its OS thread and reads the thread
// id. Where there is no thread CPU clock it only marks the run as begun.
// A pinned goroutine is locked already.
func (l *threadLock) acquire(start int64) {
	l.locked, l.clocked, l.start = true, l.short < shortStreak, start
	switch {
	case l.pinned:
		l.tid = l.pinnedTid
	case l.clocked && cpuclock.Known:
		runtime.LockOSThread()
		l.tid = cpuclock.Tid()
	}
}

// holds reports whether the run in progress holds the thread lock.
func (l *threadLock) holds() bool { return l.locked && l.clocked && cpuclock.Known }

// release undoes acquire for a run that ended at end, and counts it
// toward the short streak (a run of shortRun or more resets it). Workers call it before waiting for work and before their
// goroutine ends (a goroutine that ends locked takes its thread with it,
// which is what a pinned one wants).
func (l *threadLock) release(end int64) {
	if l.holds() && !l.pinned {
		runtime.UnlockOSThread()
	}
	if end-l.start < int64(shortRun) {
		l.short = min(l.short+1, shortStreak)
	} else {
		l.short = 0
	}
	l.locked, l.clocked, l.tid = false, false, 0
}

// pin locks the goroutine to its thread for good and lowers the thread's
// priority; false (nothing changed) when the OS refused.
func (l *threadLock) pin() bool {
	if l.pinned {
		return true
	}
	if !l.holds() {
		runtime.LockOSThread()
	}
	tid, ok := lowerThread()
	if !ok {
		if !l.holds() {
			runtime.UnlockOSThread()
		}
		return false
	}
	// A run's lock, if one is in progress, becomes the pin's: release
	// leaves a pinned goroutine locked.
	l.pinned, l.pinnedTid = true, tid
	return true
}
