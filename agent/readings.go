package agent

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/offtop/offtop/pool"
)

// LoopHistograms are copies of the Loop probe's lateness histograms (ns)
// since the last reset: samples as taken, and corrected for coordinated
// omission. They are what Collector exports, for an exporter of another
// kind (package contrib/otel).
func (a *Agent) LoopHistograms() (raw, corrected *hdr.Histogram) { return a.s.LoopHistograms() }

// Pool is Options.Pool; nil without one (a nil *pool.Pool or *pool.Meter
// included).
func (a *Agent) Pool() pool.Accounted { return accounted(a.o.Pool) }
