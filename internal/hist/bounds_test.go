package hist

import "testing"

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
