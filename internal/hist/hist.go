// Package hist records latencies into HDR histograms over a sliding time
// window and since the last reset, and reads them back with one percentile
// convention. The buckets, percentiles and max are HdrHistogram's (the
// layout of github.com/HdrHistogram/hdrhistogram-go for the range and
// precision below; its tests read the same values through hdrhistogram-go
// and require the same figures), kept in plain arrays so that recording is
// a few increments and the window slides without merging: the rest of
// offtop never sees hdr's 0..100 percentile API or its range rules.
package hist

import (
	"sync"
	"time"

	"github.com/offtop/offtop/latency"
)

// Range and precision of every Recorder. Values are nanoseconds.
const (
	// Lowest is the lowest discernible value: 1 us. Smaller values are
	// recorded in the first bucket (they read as < 1 us).
	Lowest = int64(time.Microsecond)
	// Highest is the highest trackable value: 100 s. Larger values are
	// clamped to it and counted in Summary.Clamped, never refused.
	Highest = int64(100 * time.Second)
	// SigFigs is the precision: 2 significant figures, which keeps one
	// histogram near 30 KiB so a window of them stays small. A value reads
	// back within 1% above 51 us, and within 512 ns below (hdr's finest
	// step is the power of two under Lowest; FuzzRecorder pins both).
	SigFigs = 2
)

// Summary is a read of a histogram: package latency's, the one type
// every latency figure of offtop is.
type Summary = latency.Summary

// durationOf is a value in ns as a Duration.
func durationOf(ns int64) time.Duration { return time.Duration(ns) }

// Recorder keeps a sliding window and a since-reset histogram of the same
// values. It is safe for concurrent use; mu guards everything below it.
//
// The window is Slots sub-histograms of Window/Slots each. Which slot is
// current is a pure function of the clock (now / slot length), so nobody has
// to call a rotate method on a timer: a read or write first advances the
// window to now.
//
// What it costs: a value is counted in its slot, in the window's running
// sum and in the since-reset histogram (three increments of a dense
// array: a few ns). When the window moves past a slot, the slot's counts
// are taken off the sum (in proportion to the buckets it used). A read
// scans the buckets in use of the sum (or of the total) once, and only
// when something changed since the last read of the same thing; otherwise
// it returns the kept Summary. Nothing grows with the number of slots or
// with the window's span.
type Recorder struct {
	now              func() time.Time
	slot             time.Duration
	mu               sync.Mutex
	slots            []counts // ring: slots[epoch%len] is current
	epoch            int64    // index of the slot the current one stands for
	win              counts   // the sum of slots
	total            counts
	winSum, totalSum Summary // the last reads, valid while winOK, totalOK
	winOK, totalOK   bool
	clampedW         []int64   // clamped count per slot, parallel to slots
	clamped          int64     // since reset
	since            time.Time // NewRecorder or the last Reset
}

// DefaultSlots is the number of sub-histograms a window is made of: the
// window slides in steps of Window/DefaultSlots.
const DefaultSlots = 10

// NewRecorder returns a Recorder whose window spans window (> 0), read
// through now (time.Now when nil).
func NewRecorder(window time.Duration, now func() time.Time) *Recorder {
	if window <= 0 {
		panic("hist: window must be > 0")
	}
	if now == nil {
		now = time.Now
	}
	r := &Recorder{
		now:      now,
		slot:     window / DefaultSlots,
		slots:    make([]counts, DefaultSlots),
		clampedW: make([]int64, DefaultSlots),
	}
	if r.slot <= 0 {
		r.slot = 1
	}
	r.since = r.now()
	r.epoch = r.since.UnixNano() / int64(r.slot)
	return r
}

// advance rotates the window up to the current time. Callers hold mu.
func (r *Recorder) advance() { r.advanceTo(r.now()) }

// advanceTo rotates the window up to now: each slot the clock has passed
// leaves the window's sum and is emptied for reuse. A time before the
// current slot changes nothing. Callers hold mu.
func (r *Recorder) advanceTo(now time.Time) {
	e := now.UnixNano() / int64(r.slot)
	steps := e - r.epoch
	if steps <= 0 {
		return
	}
	steps = min(steps, int64(len(r.slots)))
	for range steps {
		r.epoch++
		c := int(r.epoch % int64(len(r.slots)))
		if r.slots[c].n > 0 {
			r.win.sub(&r.slots[c])
			r.slots[c].reset()
			r.winOK = false
		}
		r.clampedW[c] = 0
	}
	r.epoch = e
}

// clamp limits v to [0, Highest] and reports whether it was above Highest.
func clamp(v int64) (int64, bool) {
	if v < 0 {
		return 0, false
	}
	if v > Highest {
		return Highest, true
	}
	return v, false
}

// Record adds one value in ns. Negative values record as 0; values above
// Highest record as Highest and are counted as clamped.
func (r *Recorder) Record(ns int64) {
	r.RecordCorrected(ns, 0)
}

// RecordCorrected adds one value in ns and, when interval > 0 and the value
// exceeds it, the values interval, 2*interval, ... below it that a probe
// sampling every interval missed while it was stalled: hdr's
// RecordCorrectedValue, the coordinated-omission correction of Gil Tene's
// HdrHistogram. With interval <= 0 it is Record.
func (r *Recorder) RecordCorrected(ns, interval int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.advance()
	r.recordLocked(ns, interval)
}

// Sample is one value (ns) and when it was taken, on the Recorder's clock
// (the now given to NewRecorder).
type Sample struct {
	NS int64
	At time.Time
}

// RecordAt records the values of s as Record would have at their At: each
// goes into the slot of its time (the window slides to the latest At), or,
// if that slot has left the window, into the since-reset histogram only. A
// caller that reads the clock anyway saves the Recorder its own read, and a
// caller that buffers values (the pool, per worker) records a batch under
// one lock without moving them in time.
func (r *Recorder) RecordAt(s ...Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range s {
		e := x.At.UnixNano() / int64(r.slot)
		if e > r.epoch {
			r.advanceTo(x.At)
		}
		r.recordSlot(x.NS, 0, r.epoch-e)
	}
}

// recordLocked records into the current slot and the total. Callers hold
// mu and have advanced the window.
func (r *Recorder) recordLocked(ns, interval int64) { r.recordSlot(ns, interval, 0) }

// recordSlot records into the slot back slots before the current one (none
// if that is out of the window or back < 0), the window's sum and the
// total. Callers hold mu.
func (r *Recorder) recordSlot(ns, interval, back int64) {
	v, over := clamp(ns)
	r.winOK, r.totalOK = false, false
	if over {
		r.clamped++
	}
	inWindow := back >= 0 && back < int64(len(r.slots))
	c := 0
	if inWindow {
		c = int((r.epoch - back) % int64(len(r.slots)))
		if over {
			r.clampedW[c]++
		}
	}
	if interval <= 0 { // one bucket: its index computed once
		i := index(v)
		r.total.add(i, 1)
		if inWindow {
			r.slots[c].add(i, 1)
			r.win.add(i, 1)
		}
		return
	}
	r.total.addCorrected(v, interval)
	if inWindow {
		r.slots[c].addCorrected(v, interval)
		r.win.addCorrected(v, interval)
	}
}

// Window summarizes the values recorded in the sliding window.
func (r *Recorder) Window() Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.advance()
	return r.windowLocked()
}

// WindowSpan is Window and the time its values cover, read at one moment:
// from the start of the oldest slot in the window (or from NewRecorder or
// the last Reset, when later) to now. It is between Window*(Slots-1)/Slots
// and Window once the Recorder is older than the window; a rate over the
// window is Count over it.
func (r *Recorder) WindowSpan() (Summary, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.advanceTo(now)
	from := time.Unix(0, (r.epoch-int64(len(r.slots))+1)*int64(r.slot))
	if r.since.After(from) {
		from = r.since
	}
	return r.windowLocked(), max(now.Sub(from), 0)
}

// windowLocked summarizes the window. Callers hold mu and have advanced it.
func (r *Recorder) windowLocked() Summary {
	if r.winOK {
		return r.winSum
	}
	s := r.win.summary()
	for _, n := range r.clampedW {
		s.Clamped += n
	}
	r.winSum, r.winOK = s, true
	return s
}

// Total summarizes the values recorded since the last Reset.
func (r *Recorder) Total() Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.totalOK {
		return r.totalSum
	}
	s := r.total.summary()
	s.Clamped = r.clamped
	r.totalSum, r.totalOK = s, true
	return s
}

// Reset empties the window and the since-reset histogram.
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.slots {
		r.slots[i].reset()
		r.clampedW[i] = 0
	}
	r.win.reset()
	r.total.reset()
	r.since = r.now()
	r.epoch = r.since.UnixNano() / int64(r.slot)
	r.clamped = 0
	r.winOK, r.totalOK = false, false
}
