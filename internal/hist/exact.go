package hist

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Exact is one HDR histogram of every value recorded since it was made, no
// window: a per-size row's Loop probe or headline. Values are ns, clamped to
// Lowest..Highest as a Recorder's are (counted in Summary.Clamped). Reading
// its Summary computes percentiles only when something was recorded since
// the last read, so a row that is not in force costs nothing per sample.
// It is not safe for concurrent use: its owner holds a lock around it.
type Exact struct {
	h       *hdr.Histogram
	clamped int64
	sum     Summary
	dirty   bool
}

// NewExact returns an empty Exact with the package's range and precision.
func NewExact() *Exact { return &Exact{h: hdr.New(Lowest, Highest, SigFigs)} }

// Record adds v (ns).
func (e *Exact) Record(v int64) {
	_ = e.h.RecordValue(e.clamp(v))
	e.dirty = true
}

// RecordCorrected adds v (ns) and, for a probe due every interval (ns)
// that ran v late, the samples it missed meanwhile (HdrHistogram's
// coordinated-omission correction, RecordCorrectedValue).
func (e *Exact) RecordCorrected(v, interval int64) {
	_ = e.h.RecordCorrectedValue(e.clamp(v), interval)
	e.dirty = true
}

func (e *Exact) clamp(v int64) int64 {
	if v > Highest {
		e.clamped++
		return Highest
	}
	return max(v, 0)
}

// Summary reads the histogram: p50, p90, p99, p99.9, max and count, zero
// when empty (show n/a then).
func (e *Exact) Summary() Summary {
	if e.dirty {
		e.sum, e.dirty = summarize(e.h), false
		e.sum.Clamped = e.clamped
	}
	return e.sum
}

// Histogram is the underlying hdrhistogram-go histogram, for its log writer
// (HdrHistogram's interval log format). The caller must not modify it, nor
// keep it past the owner's lock.
func (e *Exact) Histogram() *hdr.Histogram { return e.h }

func summarize(h *hdr.Histogram) Summary {
	n := h.TotalCount()
	if n == 0 {
		return Summary{}
	}
	v := h.ValueAtPercentilesSlice([]float64{50, 90, 99, 99.9})
	return Summary{
		P50:   time.Duration(v[0]),
		P90:   time.Duration(v[1]),
		P99:   time.Duration(v[2]),
		P999:  time.Duration(v[3]),
		Max:   time.Duration(h.Max()),
		Count: n,
	}
}
