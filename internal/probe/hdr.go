package probe

import hdr "github.com/HdrHistogram/hdrhistogram-go"

// Histograms are copies of the raw and the corrected lateness (ns)
// recorded since Reset (or the start), for exporters of whole
// histograms; the copies are the caller's.
func (p *LagProbe) Histograms() (raw, corrected *hdr.Histogram) {
	return p.raw.TotalHistogram(), p.corr.TotalHistogram()
}
