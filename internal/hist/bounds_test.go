package hist

import (
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// TestBoundsAreHdrs: Bounds of every index are the From and To of the
// same bar of hdrhistogram-go's Distribution over the package's range.
func TestBoundsAreHdrs(t *testing.T) {
	h := NewHistogram()
	_ = h.RecordValue(Highest) // the bars reach the last bucket in use
	bars := h.Distribution()
	if len(bars) < countsLen {
		t.Fatalf("%d bars, want at least %d", len(bars), countsLen)
	}
	for i, b := range bars {
		if lo, hi := Bounds(i); lo != b.From || hi != b.To {
			t.Fatalf("bucket %d: Bounds %d..%d, hdr %d..%d", i, lo, hi, b.From, b.To)
		}
	}
}

// TestEachBucketIsDistribution: EachBucket gives the bars of
// Distribution that hold values, in order, for a histogram of the
// package's range (read from its counts) and of another.
func TestEachBucketIsDistribution(t *testing.T) {
	for _, h := range []*hdr.Histogram{NewHistogram(), hdr.New(1, 1e6, 3)} {
		for _, v := range []int64{1, 700, 700, 51_000, 999_999} {
			_ = h.RecordValue(v)
		}
		var want, got []hdr.Bar
		for _, b := range h.Distribution() {
			if b.Count > 0 {
				want = append(want, b)
			}
		}
		EachBucket(h, func(from, to, count int64) { got = append(got, hdr.Bar{From: from, To: to, Count: count}) })
		if len(got) != 4 || len(got) != len(want) {
			t.Fatalf("%d buckets, Distribution %d, want 4", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("bucket %d: %+v, Distribution %+v", i, got[i], want[i])
			}
		}
	}
}
