package hist

import (
	"testing"
	"time"
)

// TestWindowSpan: the span is the whole slots before the current one and
// the current one so far, and the Summary is Window's.
func TestWindowSpan(t *testing.T) {
	c := &fakeClock{t: time.Unix(1000, 0)} // a slot's start
	r := NewRecorder(time.Second, c.now)   // slots of 100 ms
	r.Record(int64(time.Millisecond))
	c.add(30 * time.Millisecond)
	s, span := r.WindowSpan()
	if s.Count != 1 || span != 930*time.Millisecond {
		t.Fatalf("30ms into a slot: count %d span %v, want 1 and 930ms", s.Count, span)
	}
	c.add(70 * time.Millisecond) // the next slot's start
	if _, span = r.WindowSpan(); span != 900*time.Millisecond {
		t.Fatalf("at a slot's start: span %v, want 900ms", span)
	}
	c.add(time.Second)
	if s, _ = r.WindowSpan(); s.Count != 0 {
		t.Fatalf("a second later: count %d, want 0", s.Count)
	}
}
