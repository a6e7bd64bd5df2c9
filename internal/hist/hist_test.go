package hist

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func near(a, b time.Duration, rel float64) bool {
	return float64(a) >= float64(b)*(1-rel) && float64(a) <= float64(b)*(1+rel)
}

func TestEmptyReadsCountZero(t *testing.T) {
	r := NewRecorder(time.Second, nil)
	if s := r.Window(); s != (Summary{}) {
		t.Errorf("empty window: %+v", s)
	}
	if s := r.Total(); s != (Summary{}) {
		t.Errorf("empty total: %+v", s)
	}
}

func TestWindowSlidesWithTheClock(t *testing.T) {
	c := &fakeClock{t: time.Unix(1000, 0)}
	r := NewRecorder(time.Second, c.now)
	r.Record(int64(50 * time.Millisecond))
	c.add(500 * time.Millisecond)
	r.Record(int64(5 * time.Millisecond))
	if s := r.Window(); s.Count != 2 || !near(s.Max, 50*time.Millisecond, 0.01) {
		t.Fatalf("both in window: %+v", s)
	}
	c.add(600 * time.Millisecond) // the first value is now 1.1s old
	if s := r.Window(); s.Count != 1 || !near(s.Max, 5*time.Millisecond, 0.01) {
		t.Fatalf("first value should have left the window: %+v", s)
	}
	c.add(time.Hour)
	if s := r.Window(); s.Count != 0 {
		t.Fatalf("window after an hour: %+v", s)
	}
	if s := r.Total(); s.Count != 2 {
		t.Fatalf("total keeps everything since reset: %+v", s)
	}
	r.Reset()
	if s := r.Total(); s.Count != 0 {
		t.Fatalf("after reset: %+v", s)
	}
}

func TestClampAndNegative(t *testing.T) {
	r := NewRecorder(time.Second, nil)
	r.Record(-5)
	r.Record(Highest * 3)
	s := r.Total()
	if s.Count != 2 || s.Clamped != 1 || !near(s.Max, time.Duration(Highest), 0.01) {
		t.Errorf("clamped: %+v", s)
	}
	if w := r.Window(); w.Clamped != 1 {
		t.Errorf("window clamped: %+v", w)
	}
}

// TestCorrectedAddsMissedSamples: one 100ms sample at a 10ms interval is
// the 10 samples 100, 90, ..., 10 a request arriving during the stall saw.
func TestCorrectedAddsMissedSamples(t *testing.T) {
	r := NewRecorder(time.Second, nil)
	r.RecordCorrected(int64(100*time.Millisecond), int64(10*time.Millisecond))
	s := r.Total()
	if s.Count != 10 || !near(s.Max, 100*time.Millisecond, 0.01) || !near(s.P50, 50*time.Millisecond, 0.02) {
		t.Errorf("corrected: %+v", s)
	}
}

// FuzzRecorder: for any values (ns, negative and huge ones included), the
// since-reset count is the number recorded, Clamped counts exactly those
// above Highest, the percentiles are ordered p50 <= p90 <= p99 <= p99.9 <=
// max, each within 1% of a recorded value's range, and under a clock that
// does not move the window reads the same as the total; one window later
// it is empty while the total is kept.
// go test -fuzz FuzzRecorder ./internal/hist
func FuzzRecorder(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0x80})
	f.Add([]byte("0123456789abcdef0123456789abcdef"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := &fakeClock{t: time.Unix(1000, 0)}
		r := NewRecorder(5*time.Second, c.now)
		var n, over int64
		lo, hi := int64(math.MaxInt64), int64(0)
		for ; len(b) >= 8; b = b[8:] {
			v := int64(binary.LittleEndian.Uint64(b))
			r.Record(v)
			n++
			v = max(v, 0)
			if v > Highest {
				over++
				v = Highest
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		tot, win := r.Total(), r.Window()
		if tot.Count != n || tot.Clamped != over {
			t.Fatalf("count %d clamped %d, want %d and %d", tot.Count, tot.Clamped, n, over)
		}
		if win != tot {
			t.Fatalf("window %+v differs from total %+v under a frozen clock", win, tot)
		}
		if n == 0 {
			if tot != (Summary{}) {
				t.Fatalf("empty recorder reads %+v", tot)
			}
			return
		}
		ps := []time.Duration{tot.P50, tot.P90, tot.P99, tot.P999, tot.Max}
		if !slices.IsSorted(ps) {
			t.Fatalf("percentiles out of order: %v", ps)
		}
		// hdr reports a bucket's bound: within 1% of a value (SigFigs 2),
		// or within Lowest below the first bucket's top (hdr's finest step
		// is the power of two under Lowest, 512 ns).
		if float64(ps[0]) < float64(lo)*0.99-float64(Lowest) || float64(ps[4]) > float64(hi)*1.01+float64(Lowest) {
			t.Fatalf("percentiles %v outside recorded range [%d, %d]", ps, lo, hi)
		}
		c.add(5 * time.Second)
		if w := r.Window(); w.Count != 0 || w.Clamped != 0 {
			t.Fatalf("window one span later: %+v, want empty", w)
		}
		if again := r.Total(); again != tot {
			t.Fatalf("total changed as the clock moved: %+v -> %+v", tot, again)
		}
	})
}

// TestReadsAsDenseHdr pins the sparse form against hdr's dense histogram:
// for values spread over the whole range, recorded across slots and read
// between records (so the kept summaries and the sum of the older slots
// are exercised), every read equals hdr.Histogram's own percentiles and max
// of the same values.
func TestReadsAsDenseHdr(t *testing.T) {
	c := &fakeClock{t: time.Unix(1000, 0)}
	r := NewRecorder(time.Second, c.now)
	dense := hdr.New(Lowest, Highest, SigFigs)
	var win []int64
	x := uint64(12345)
	for i := range 3000 {
		x = x*6364136223846793005 + 1442695040888963407
		v := int64(x>>1) % (int64(time.Second) << (i % 7)) // 0 .. 64 s
		r.Record(v)
		_ = dense.RecordValue(v)
		win = append(win, v)
		if i%97 == 0 {
			want := denseSummary(dense)
			if got := r.Total(); got != want {
				t.Fatalf("after %d values: total %+v, dense hdr %+v", i+1, got, want)
			}
		}
		if i%250 == 249 {
			c.add(100 * time.Millisecond) // one slot: 10 slots of 100ms
		}
	}
	// The clock moved on after the last value: the window holds the 9
	// slots before the current (empty) one, the last 2250 values.
	wd := hdr.New(Lowest, Highest, SigFigs)
	for _, v := range win[len(win)-2250:] {
		_ = wd.RecordValue(v)
	}
	got := r.Window()
	want := denseSummary(wd)
	if got != want {
		t.Fatalf("window %+v, dense hdr of the same values %+v", got, want)
	}
}

func denseSummary(h *hdr.Histogram) Summary {
	if h.TotalCount() == 0 {
		return Summary{}
	}
	v := h.ValueAtPercentilesSlice([]float64{50, 90, 99, 99.9})
	return Summary{P50: time.Duration(v[0]), P90: time.Duration(v[1]), P99: time.Duration(v[2]),
		P999: time.Duration(v[3]), Max: time.Duration(h.Max()), Count: h.TotalCount()}
}

// BenchmarkRead is what one sample costs a Recorder fed like the Loop
// probe (one value every 10ms, so 25 per 250ms sample): record 25 values,
// read the window and the total. The cost must not grow with the window.
func BenchmarkRead(b *testing.B) {
	for _, window := range []time.Duration{5 * time.Second, 30 * time.Second, 5 * time.Minute} {
		b.Run(window.String(), func(b *testing.B) {
			c := &fakeClock{t: time.Unix(1000, 0)}
			r := NewRecorder(window, c.now)
			x := uint64(1)
			b.ReportAllocs()
			for b.Loop() {
				for range 25 {
					x = x*6364136223846793005 + 1442695040888963407
					r.RecordCorrected(int64(50*time.Microsecond)+int64(x>>44), int64(10*time.Millisecond))
					c.add(10 * time.Millisecond)
				}
				_ = r.Window()
				_ = r.Total()
			}
		})
	}
}

// TestRecordAtUsesTheGivenTime: RecordAt puts each value in the slot of
// its own time: the window slides to the latest, a value older than the
// window counts only since reset, and a batch read late lands where it
// would have landed recorded at once.
func TestRecordAtUsesTheGivenTime(t *testing.T) {
	c := &fakeClock{t: time.Unix(1000, 0)}
	r := NewRecorder(time.Second, c.now) // 10 slots of 100ms
	t0 := c.t
	r.RecordAt(Sample{int64(time.Millisecond), t0},
		Sample{int64(2 * time.Millisecond), t0.Add(950 * time.Millisecond)})
	c.add(1050 * time.Millisecond) // the first value's slot leaves the window
	if w := r.Window(); w.Count != 1 || !near(w.Max, 2*time.Millisecond, 0.01) {
		t.Fatalf("window %+v, want only the 2ms value", w)
	}
	r.RecordAt(Sample{int64(3 * time.Millisecond), t0.Add(-time.Hour)}) // older than the window
	if w, tot := r.Window(), r.Total(); w.Count != 1 || tot.Count != 3 {
		t.Fatalf("window %+v total %+v, want 1 and 3", w, tot)
	}
	r.RecordAt(Sample{int64(4 * time.Millisecond), t0.Add(980 * time.Millisecond)}) // late, same slot as the 2ms
	c.add(950 * time.Millisecond)                                                   // 2000ms: the 950 and 980 slot (900..1000) has left
	if w := r.Window(); w.Count != 0 {
		t.Fatalf("window %+v, want empty: both values were in the 900ms slot", w)
	}
}

// FuzzMatchesHdr: for any values and any correction interval, the
// since-reset read and (under a frozen clock) the window read equal what
// hdrhistogram-go's dense Histogram reads for the same recording, and the
// top of every value's bucket is hdr's highest equivalent value.
// go test -fuzz FuzzMatchesHdr ./internal/hist
func FuzzMatchesHdr(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, int64(0))
	f.Add([]byte("0123456789abcdef0123456789abcdef"), int64(10*time.Millisecond))
	f.Fuzz(func(t *testing.T, b []byte, interval int64) {
		// Bounded correction work: at most 10^4 values added per value.
		if interval = interval % int64(time.Second); interval > 0 {
			interval = max(interval, int64(time.Millisecond))
		}
		c := &fakeClock{t: time.Unix(1000, 0)}
		r := NewRecorder(5*time.Second, c.now)
		dense := hdr.New(Lowest, Highest, SigFigs)
		for ; len(b) >= 8; b = b[8:] {
			v := int64(binary.LittleEndian.Uint64(b)) % (10 * int64(time.Second))
			v = max(v, 0)
			r.RecordCorrected(v, interval)
			_ = dense.RecordCorrectedValue(v, max(interval, 0))
			if top := highest(index(v)); !dense.ValuesAreEquivalent(v, top) || (top < Highest && dense.ValuesAreEquivalent(v, top+1)) {
				t.Fatalf("value %d: bucket top %d is not hdr's highest equivalent value", v, top)
			}
		}
		want := denseSummary(dense)
		if got := r.Total(); got != want {
			t.Fatalf("total %+v, hdr %+v", got, want)
		}
		if got := r.Window(); got != want {
			t.Fatalf("window %+v, hdr %+v", got, want)
		}
	})
}
