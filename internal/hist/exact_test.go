package hist

import (
	"testing"
	"time"
)

// TestExactReadsAndCaches: a read gives the recorded figures, a read with
// nothing new gives the same, a new value changes it, and an out-of-range
// value is clamped and counted.
func TestExactReadsAndCaches(t *testing.T) {
	e := NewExact()
	if s := e.Summary(); s.Count != 0 {
		t.Fatalf("empty: %+v", s)
	}
	for i := 1; i <= 100; i++ {
		e.Record(int64(i) * int64(time.Millisecond))
	}
	s := e.Summary()
	if s.Count != 100 || s.P99 < 98*time.Millisecond || s.P99 > 100*time.Millisecond || s.Max < 99*time.Millisecond {
		t.Fatalf("1..100 ms: %+v", s)
	}
	if again := e.Summary(); again != s {
		t.Fatalf("a second read changed: %+v then %+v", s, again)
	}
	e.Record(2 * Highest)
	if s2 := e.Summary(); s2.Count != 101 || s2.Clamped != 1 || s2.Max < time.Duration(Highest)*99/100 {
		t.Fatalf("after a clamped value: %+v", s2)
	}
	// A 100 ms stall of a 10 ms probe counts the 9 samples it missed.
	c := NewExact()
	c.RecordCorrected(int64(100*time.Millisecond), int64(10*time.Millisecond))
	if n := c.Summary().Count; n != 10 {
		t.Fatalf("corrected count %d, want 10", n)
	}
	if c.Histogram().TotalCount() != 10 {
		t.Fatal("Histogram is not the one recorded into")
	}
}
