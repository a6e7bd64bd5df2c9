package hist

import hdr "github.com/HdrHistogram/hdrhistogram-go"

// NewHistogram returns an empty hdrhistogram-go histogram of the package's
// range and precision (values in ns).
func NewHistogram() *hdr.Histogram { return hdr.New(Lowest, Highest, SigFigs) }

// TotalHistogram is what was recorded since the last Reset as an
// hdrhistogram-go histogram of the package's range (values in ns), for
// writers of HdrHistogram's own formats (an interval log): the dense
// counts converted at the edge, bucket for bucket (the layout is hdr's,
// so every count lands in the bucket it came from). The copy is the
// caller's.
func (r *Recorder) TotalHistogram() *hdr.Histogram {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := NewHistogram()
	if r.total.n == 0 {
		return out
	}
	for i := r.total.min; i <= r.total.max; i++ {
		if c := r.total.c[i]; c > 0 {
			_ = out.RecordValues(highest(i), c)
		}
	}
	return out
}

// Copy returns a copy of h that shares nothing with it.
func Copy(h *hdr.Histogram) *hdr.Histogram { return hdr.Import(h.Export()) }

// Summarize reads h (values in ns) as an Exact's Summary is read: the same
// percentile rule, zero when empty.
func Summarize(h *hdr.Histogram) Summary { return summarize(h) }
