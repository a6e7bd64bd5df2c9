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
		return NA(key, label)
	}
	return Millis(key, label, m.sum/time.Duration(m.n), true)
}

// everyTick calls fn at t0 + k*period (k = 1, 2, ...) until stop is closed,
// skipping due times that passed while fn ran. Pacing is a pure function of
// elapsed time (see nextTick); it never relies on time.Ticker.
func everyTick(period time.Duration, stop <-chan struct{}, fn func()) {
	t0 := time.Now()
	k := int64(1)
	t := time.NewTimer(period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		fn()
		k = nextTick(time.Since(t0), period, k)
		t.Reset(time.Until(t0.Add(time.Duration(k) * period)))
	}
}

// nextTick returns the index of the first tick strictly after elapsed,
// and at least k+1.
func nextTick(elapsed, period time.Duration, k int64) int64 {
	next, _ := pace.Every{Period: period}.Next(elapsed, k)
	return next
}
