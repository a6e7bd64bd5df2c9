package session

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/offtop/offtop/internal/hist"
)

// SizeRead is the size row in force (SizeRow) and copies of the
// histograms behind it, read at one moment: the Loop probe (corrected) and
// the scenario's headline at this size, whose counts and max are the
// row's, and the pool tasks' submit-to-end latency since the last Reset
// (empty for a program's pool that keeps none); values in ns. For stall
// the headline is the probe. Before the first size: a zero row and empty
// histograms.
func (s *Session) SizeRead() (row SizeRow, probe, headline, task *hdr.Histogram) {
	task = hist.NewHistogram() // a program's pool may keep none
	if p, ok := s.pool.(interface{ TaskHistogram() *hdr.Histogram }); ok {
		task = p.TaskHistogram()
	}
	z := s.sizes
	now := z.now()
	done, cpu, cpuOK := z.read()
	m := z.readMachine()
	z.mu.Lock()
	defer z.mu.Unlock()
	cur := z.current()
	if cur == nil {
		return SizeRow{}, hist.NewHistogram(), hist.NewHistogram(), task
	}
	for _, r := range z.rowsAt(now, done, cpu, cpuOK, m) {
		if r.Current {
			row = r
		}
	}
	probe = hist.Copy(cur.acc.probe.Histogram())
	headline = hist.Copy(headlineOf(z.spec(cur.acc.key.scen), cur.acc.probe, cur.acc.headline).Histogram())
	return row, probe, headline, task
}
