package probe

import (
	"math"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/offtop/offtop/internal/hist"
)

// schedLatencies is the runtime metric of the time goroutines spend runnable
// before they run. It does not count time spent waiting for a timer to fire:
// the lateness half of the scheduler probe does.
const schedLatencies = "/sched/latencies:seconds"

// SchedProbe is a lateness probe whose samples run on its own goroutine
// (how late a free goroutine wakes up), plus the runtime's
// /sched/latencies:seconds. All methods are safe for concurrent use.
type SchedProbe struct {
	lag *LagProbe

	mu      sync.Mutex       // guards the fields below, used by Stats and Reset
	samples []metrics.Sample // reused by every read
	prev    []uint64         // bucket counts at the previous read
}

// StartSchedProbe starts a scheduler probe with the given resolution and
// sliding window. It panics if either is not positive. Stop stops it.
func StartSchedProbe(resolution, window time.Duration) *SchedProbe {
	s := &SchedProbe{
		lag:     StartLagProbe(nil, resolution, window),
		samples: []metrics.Sample{{Name: schedLatencies}},
	}
	s.mu.Lock()
	s.read()
	s.mu.Unlock()
	return s
}

// read reads the runtime histogram, returns the delta summary since the
// previous read and remembers the new counts. Callers hold mu.
func (s *SchedProbe) read() hist.Summary {
	metrics.Read(s.samples)
	if s.samples[0].Value.Kind() != metrics.KindFloat64Histogram {
		return hist.Summary{} // not supported by this runtime
	}
	h := s.samples[0].Value.Float64Histogram()
	sum := summarizeBuckets(h.Counts, s.prev, h.Buckets)
	// Read may reuse h's memory next time: keep a copy of the counts.
	s.prev = append(s.prev[:0], h.Counts...)
	return sum
}

// Stats returns the lateness figures and, in Runtime, the runtime's
// scheduling latencies since the previous call to Stats (or Reset, or the
// start).
func (s *SchedProbe) Stats() SchedStats {
	st := SchedStats{LagStats: s.lag.Stats()}
	s.mu.Lock()
	st.Runtime = s.read()
	s.mu.Unlock()
	return st
}

// Reset empties the lateness histograms and starts the next Runtime
// interval now.
func (s *SchedProbe) Reset() {
	s.lag.Reset()
	s.mu.Lock()
	s.read()
	s.mu.Unlock()
}

// Stop stops the probe and waits for its goroutine. Safe to call more than
// once.
func (s *SchedProbe) Stop() { s.lag.Stop() }

// summarizeBuckets summarizes the histogram cur minus prev (prev may be
// shorter, e.g. nil for "nothing before"; a bucket that went down counts as
// 0). bounds has len(cur)+1 boundaries in seconds: bucket i holds values in
// [bounds[i], bounds[i+1]). Percentiles and Max are bucket upper bounds; an
// infinite upper bound is clamped to the last finite boundary. It is a pure
// function.
func summarizeBuckets(cur, prev []uint64, bounds []float64) hist.Summary {
	if len(bounds) != len(cur)+1 {
		return hist.Summary{}
	}
	delta := func(i int) uint64 {
		if i < len(prev) && prev[i] <= cur[i] {
			return cur[i] - prev[i]
		} else if i < len(prev) {
			return 0
		}
		return cur[i]
	}
	var total uint64
	top := -1
	for i := range cur {
		if d := delta(i); d > 0 {
			total += d
			top = i
		}
	}
	if total == 0 {
		return hist.Summary{}
	}
	upper := func(i int) time.Duration {
		b := bounds[i+1]
		if math.IsInf(b, 1) {
			b = lastFinite(bounds)
		}
		if b <= 0 || math.IsNaN(b) {
			return 0
		}
		return time.Duration(b * float64(time.Second))
	}
	// Percentile q is the upper bound of the bucket holding the value of
	// rank ceil(q*total) (1-based), as hdr reads its own buckets.
	qs := [4]float64{0.50, 0.90, 0.99, 0.999}
	var out [4]time.Duration
	j := 0
	var cum uint64
	for i := range cur {
		cum += delta(i)
		for j < len(qs) && float64(cum) >= math.Ceil(qs[j]*float64(total)) {
			out[j] = upper(i)
			j++
		}
		if j == len(qs) {
			break
		}
	}
	return hist.Summary{
		P50:   out[0],
		P90:   out[1],
		P99:   out[2],
		P999:  out[3],
		Max:   upper(top),
		Count: int64(min(total, math.MaxInt64)),
	}
}

// lastFinite returns the largest finite boundary in bounds (0 if none).
func lastFinite(bounds []float64) float64 {
	for i := len(bounds) - 1; i >= 0; i-- {
		if !math.IsInf(bounds[i], 0) && !math.IsNaN(bounds[i]) {
			return bounds[i]
		}
	}
	return 0
}
