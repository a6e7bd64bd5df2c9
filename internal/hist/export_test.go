package hist

import (
	"testing"
	"time"
)

// TestTotalHistogramCountsAsRecorded: the since-reset counts converted to
// an hdrhistogram-go histogram (for the HDR log) hold the same total, max
// and percentiles as the Recorder reads.
func TestTotalHistogramCountsAsRecorded(t *testing.T) {
	c := &fakeClock{t: time.Unix(0, 0)}
	r := NewRecorder(time.Second, c.now)
	if h := r.TotalHistogram(); h.TotalCount() != 0 {
		t.Fatalf("empty: %d", h.TotalCount())
	}
	for i := int64(1); i <= 2000; i++ {
		r.Record(i * 7919 % 300_000_000)
	}
	r.RecordCorrected(int64(200*time.Millisecond), int64(10*time.Millisecond))
	h, want := r.TotalHistogram(), r.Total()
	got := Summary{Count: h.TotalCount(), Max: time.Duration(h.Max()), P99: time.Duration(h.ValueAtQuantile(99)), P50: time.Duration(h.ValueAtQuantile(50))}
	if got.Count != want.Count || got.Max != want.Max || got.P99 != want.P99 || got.P50 != want.P50 {
		t.Errorf("converted %+v, recorder %+v", got, want)
	}
}
