package hist

import hdr "github.com/HdrHistogram/hdrhistogram-go"

// TotalHistogram is a copy of what was recorded since the last Reset, as
// an hdr histogram of the package's range (values in ns): for writers of
// HdrHistogram's own formats (an interval log). The copy is the caller's.
func (r *Recorder) TotalHistogram() *hdr.Histogram {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Copy(r.total)
}

// Copy returns a copy of h that shares nothing with it.
func Copy(h *hdr.Histogram) *hdr.Histogram { return hdr.Import(h.Export()) }
