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
	// pinned: the goroutine is locked to its thread for life, at a lowered
	// priority (priority.go); pinnedTid is that thread.
	pinned    bool
	pinnedTid int
}

// acquire locks the goroutine to its OS thread and reads the thread id.
// Where there is no thread CPU clock it only marks the run as begun. A
// pinned goroutine is locked already.
func (l *threadLock) acquire() {
	l.locked = true
	switch {
	case l.pinned:
		l.tid = l.pinnedTid
	case cpuclock.Known:
		runtime.LockOSThread()
		l.tid = cpuclock.Tid()
	}
}

// release undoes acquire. Workers call it before waiting for work and
// before their goroutine ends (a goroutine that ends locked takes its
// thread with it, which is what a pinned one wants).
func (l *threadLock) release() {
	if cpuclock.Known && !l.pinned {
		runtime.UnlockOSThread()
	}
	l.locked, l.tid = false, 0
}

// pin locks the goroutine to its thread for good and lowers the thread's
// priority; false (nothing changed) when the OS refused.
func (l *threadLock) pin() bool {
	if l.pinned {
		return true
	}
	if !l.locked || !cpuclock.Known {
		runtime.LockOSThread()
	}
	tid, ok := lowerThread()
	if !ok {
		if !l.locked || !cpuclock.Known {
			runtime.UnlockOSThread()
		}
		return false
	}
	// A run's lock, if one is in progress, becomes the pin's: release
	// leaves a pinned goroutine locked.
	l.pinned, l.pinnedTid = true, tid
	return true
}
