package pool

import hdr "github.com/HdrHistogram/hdrhistogram-go"

// TaskHistogram is a copy of the tasks' submit-to-end latency (ns) since
// the last ResetLatency, for writers of HdrHistogram's formats.
func (p *Pool) TaskHistogram() *hdr.Histogram { return p.total.TotalHistogram() }
