package scenarios

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestCountSumMatchesClosedForm(t *testing.T) {
	for _, n := range []int64{0, 1, 2, 10, 1000, 123457} {
		var stop atomic.Bool
		if got, ok := countSum(n, &stop); !ok || got != uint64(n)*uint64(max(n-1, 0))/2 {
			t.Errorf("countSum(%d) = %d, %v", n, got, ok)
		}
	}
}

func TestFibAnswers(t *testing.T) {
	if fib(fastN) != 832040 || fib(20) != 6765 {
		t.Errorf("fib(30) = %d, fib(20) = %d", fib(fastN), fib(20))
	}
}

func TestNextTick(t *testing.T) {
	p := 10 * time.Millisecond
	for _, c := range []struct {
		elapsed time.Duration
		k, want int64
	}{
		{10 * time.Millisecond, 1, 2}, // on time: the next one
		{12 * time.Millisecond, 1, 2}, // a little late
		{55 * time.Millisecond, 1, 6}, // ran long: skip 2..5
		{20 * time.Millisecond, 2, 3}, // exactly on a boundary: strictly after
		{5 * time.Millisecond, 3, 4},  // clock behind k: still advance
	} {
		if got := nextTick(c.elapsed, p, c.k); got != c.want {
			t.Errorf("nextTick(%v, %v, %d) = %d, want %d", c.elapsed, p, c.k, got, c.want)
		}
	}
}

func TestSI(t *testing.T) {
	for v, want := range map[float64]string{160e6: "160M", 1600: "1.6k", 2e9: "2G", 999: "999", 8000: "8k"} {
		if got := si(v); got != want {
			t.Errorf("si(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestCountStopsMidBatch pins the fix for a quit that waited for a whole
// batch (35s at --scale 100): a stopped job gives up at once.
func TestCountStopsMidBatch(t *testing.T) {
	var stop atomic.Bool
	stop.Store(true)
	if _, ok := countSum(1<<40, &stop); ok {
		t.Error("countSum ran to the end with stop set")
	}
}

// TestLookFitsEighty: the "what to look at" line is read at 80 columns.
func TestLookFitsEighty(t *testing.T) {
	for _, n := range Names() {
		s, _ := New(n, Config{})
		if l := len([]rune(s.Look())); l > 80 {
			t.Errorf("%s: Look is %d runes, over 80: %q", n, l, s.Look())
		}
	}
}
