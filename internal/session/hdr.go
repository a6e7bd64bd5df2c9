package session

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
)

// SizeHistograms are copies of the histograms behind the size row in
// force (SizeRow): the Loop probe (corrected) and the scenario's headline
// at this size, and the pool tasks' submit-to-end latency since the last
// Reset; values in ns. For stall the headline is the probe. Empty
// histograms before the first size.
func (s *Session) SizeHistograms() (probe, headline, task *hdr.Histogram) {
	task = s.pool.TaskHistogram()
	z := s.sizes
	z.mu.Lock()
	defer z.mu.Unlock()
	cur := z.current()
	if cur == nil {
		return hist.NewHistogram(), hist.NewHistogram(), task
	}
	probe, headline = hist.Copy(cur.acc.probe), hist.Copy(cur.acc.headline)
	if scenarios.Headline(cur.acc.key.scen).FromProbe {
		headline = hist.Copy(cur.acc.probe)
	}
	return probe, headline, task
}
