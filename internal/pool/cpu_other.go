//go:build !linux

package pool

import "time"

// onCPUKnown reports whether this OS gives per-thread CPU clocks: not here,
// so WorkerStats.OnCPUKnown is false and Utilization's onCPU is nil.
const onCPUKnown = false

// threadLock only tracks whether a run is in progress where thread CPU
// clocks are not read; tid stays 0.
type threadLock struct {
	locked bool
	tid    int
	run    uint64 // the runAcct run this goroutine began (see beginRun)
}

func (l *threadLock) acquire() { l.locked = true }
func (l *threadLock) release() { l.locked = false }

func selfCPU() (time.Duration, bool)      { return 0, false }
func threadCPU(int) (time.Duration, bool) { return 0, false }
