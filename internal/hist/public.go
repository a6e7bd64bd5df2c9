package hist

import "github.com/offtop/offtop/latency"

// Public is s as the public packages (pool, looplag) return it: the
// percentiles, Max and Count; Clamped is left out.
func (s Summary) Public() latency.Summary {
	return latency.Summary{P50: s.P50, P90: s.P90, P99: s.P99, P999: s.P999, Max: s.Max, Count: s.Count}
}
