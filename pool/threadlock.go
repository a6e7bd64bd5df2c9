package pool

import (
	"runtime"

	"github.com/offtop/offtop/internal/cpuclock"
)

// threadLock is a worker goroutine's hold on its OS thread. It is owned by
// that goroutine and never shared.
type threadLock struct {
	locked bool
	tid    int    // the thread's id while locked (0 where cpuclock.Known is false)
	run    uint64 // the runAcct run this goroutine began (see beginRun)
}

// acquire locks the goroutine to its OS thread and reads the thread id.
// Where there is no thread CPU clock it only marks the run as begun.
func (l *threadLock) acquire() {
	l.locked = true
	if cpuclock.Known {
		runtime.LockOSThread()
		l.tid = cpuclock.Tid()
	}
}

// release undoes acquire. Workers call it before waiting for work and
// before their goroutine ends (a goroutine that ends locked takes its
// thread with it).
func (l *threadLock) release() {
	if cpuclock.Known {
		runtime.UnlockOSThread()
	}
	l.locked, l.tid = false, 0
}
