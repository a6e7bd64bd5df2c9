package hist

import (
	"testing"
	"time"
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
