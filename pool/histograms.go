package pool

import hdr "github.com/HdrHistogram/hdrhistogram-go"

// LatencyHistograms are copies of the tasks' queue wait and run time (ns)
// since the last ResetLatency, for exporters of whole histograms: the
// histograms behind Stats.WaitAll and Stats.RunAll, with every task that
// Stats would count recorded first.
func (p *Pool) LatencyHistograms() (wait, run *hdr.Histogram) {
	var lat []latTimes
	p.mu.Lock()
	for _, w := range p.slots {
		if w != nil {
			lat = w.lat.takeLocked(lat)
		}
	}
	p.mu.Unlock()
	p.recordTimes(lat)
	return p.wait.TotalHistogram(), p.run.TotalHistogram()
}

// LatencyHistograms are copies of the tasks' queue wait and run time (ns)
// since the last ResetLatency, as Pool.LatencyHistograms.
func (m *Meter) LatencyHistograms() (wait, run *hdr.Histogram) {
	return m.wait.TotalHistogram(), m.run.TotalHistogram()
}
