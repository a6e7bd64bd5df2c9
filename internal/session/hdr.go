package session

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
)

// SizeHistograms are copies of the histograms behind the size row in
// force (SizeRow): the Loop probe (corrected) and the scenario's headline
// at this size, and the pool tasks' submit-to-end latency since the last
// Reset (empty for a program's pool that keeps none); values in ns. For
// stall the headline is the probe. Empty histograms before the first size.
func (s *Session) SizeHistograms() (probe, headline, task *hdr.Histogram) {
	task = hist.NewHistogram() // a program's pool may keep none
	if p, ok := s.pool.(interface{ TaskHistogram() *hdr.Histogram }); ok {
		task = p.TaskHistogram()
	}
	z := s.sizes
	z.mu.Lock()
	defer z.mu.Unlock()
	cur := z.current()
	if cur == nil {
		return hist.NewHistogram(), hist.NewHistogram(), task
	}
	probe, headline = hist.Copy(cur.acc.probe.Histogram()), hist.Copy(cur.acc.headline.Histogram())
	if scenarios.Headline(cur.acc.key.scen).FromProbe {
		headline = hist.Copy(cur.acc.probe.Histogram())
	}
	return probe, headline, task
}
