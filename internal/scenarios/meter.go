package scenarios

import (
	"sync"
	"time"

	"github.com/offtop/offtop/internal/pace"
)

// cpuMeter averages measured CPU time per task. Safe for concurrent use;
// mu guards sum and n.
type cpuMeter struct {
	mu  sync.Mutex
	sum time.Duration
	n   int64
}

// run runs fn, measuring its thread CPU time where the OS allows.
func (m *cpuMeter) run(fn func()) {
	d, ok := onCPU(fn)
	if !ok {
		return
	}
	m.mu.Lock()
	m.sum += d
	m.n++
	m.mu.Unlock()
}

// readout is the mean CPU ms per task, n/a before the first one.
func (m *cpuMeter) readout(key, label string) Readout {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == 0 {
		return NA(key, label).In(UnitMS)
	}
	return Millis(key, label, m.sum/time.Duration(m.n), true)
}

// nextTick returns the index of the first tick strictly after elapsed,
// and at least k+1.
func nextTick(elapsed, period time.Duration, k int64) int64 {
	next, _ := pace.Every{Period: period}.Next(elapsed, k)
	return next
}
