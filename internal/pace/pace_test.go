package pace

import (
	"testing"
	"time"
)

// TestEvery: the schedule as a table, with no clock: which event comes
// next after event k ran at elapsed, how many due times were skipped, and
// how long to wait. (The cases of the Loop probe's former nextDue, plus
// the sampler's.)
func TestEvery(t *testing.T) {
	e := Every{Period: 10 * time.Millisecond}
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	tests := []struct {
		name       string
		k          int64
		elapsed    time.Duration
		wantNext   int64
		wantMissed int64
	}{
		{"on time", 1, ms(10), 2, 0},
		{"a little late", 1, ms(10.3), 2, 0},
		{"just before the next due time", 1, ms(19.999), 2, 0},
		{"exactly on the next due time: strictly after", 1, ms(20), 3, 1},
		{"one due time skipped", 1, ms(25), 3, 1},
		{"100ms stall", 5, ms(151), 16, 10},
		{"1s stall", 1, ms(1010), 102, 100},
		{"ran before its due time (clock step)", 7, ms(10), 8, 0},
		{"ran before t0", 1, -time.Second, 2, 0},
		{"first event", 0, ms(0.2), 1, 0},
		{"nothing ran yet, at t0", 0, 0, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			next, missed, wait := e.Pace(tc.elapsed, tc.k)
			if next != tc.wantNext || missed != tc.wantMissed {
				t.Fatalf("Pace(%v, %d) = next %d, missed %d; want %d, %d",
					tc.elapsed, tc.k, next, missed, tc.wantNext, tc.wantMissed)
			}
			if n2, m2 := e.Next(tc.elapsed, tc.k); n2 != next || m2 != missed {
				t.Fatalf("Next disagrees with Pace: %d, %d", n2, m2)
			}
			due := e.Due(next)
			if due != time.Duration(next)*e.Period {
				t.Fatalf("Due(%d) = %v", next, due)
			}
			if wait <= 0 || tc.elapsed+wait != due {
				t.Fatalf("wait %v from %v, want %v (> 0)", wait, tc.elapsed, due-tc.elapsed)
			}
		})
	}
}

// FuzzEvery: for any period, event and elapsed time, the next event is due
// strictly after elapsed, comes after k, and every due time skipped lies in
// (Due(k), elapsed].
func FuzzEvery(f *testing.F) {
	f.Add(int64(10e6), int64(3), int64(55e6))
	f.Add(int64(1), int64(0), int64(-5))
	f.Fuzz(func(t *testing.T, period, k, elapsed int64) {
		if period <= 0 || k < 0 || k > 1<<40 || period > 1<<40 || elapsed > 1<<50 || elapsed < -(1<<50) {
			return
		}
		e := Every{Period: time.Duration(period)}
		next, missed, wait := e.Pace(time.Duration(elapsed), k)
		if next <= k || missed != next-k-1 || wait <= 0 {
			t.Fatalf("Pace(%d, %d) with period %d = %d, %d, %v", elapsed, k, period, next, missed, wait)
		}
		if missed > 0 && e.Due(next-1) > time.Duration(elapsed) {
			t.Fatalf("skipped due time %v is after elapsed %d", e.Due(next-1), elapsed)
		}
	})
}

// TestRate: arrivals of an open-loop stream as a table, and Due as the
// inverse of Count (the io and crash scenarios' former arrivalsDue,
// ioDueAt and dueTasks cases).
func TestRate(t *testing.T) {
	for _, c := range []struct {
		el   time.Duration
		rate int
		want int64
	}{
		{0, 50, 0}, {-time.Minute, 50, 0}, {19 * time.Millisecond, 50, 0}, {20 * time.Millisecond, 50, 1},
		{3 * time.Second, 50, 150}, {1500 * time.Millisecond, 3, 4}, {time.Hour, -1, 0},
		{time.Second - 1, 3, 2}, {100 * 24 * time.Hour, 1_000_000, 100 * 24 * 3600 * 1_000_000},
	} {
		if got := (Rate{c.rate}).Count(c.el); got != c.want {
			t.Errorf("Rate{%d}.Count(%v) = %d, want %d", c.rate, c.el, got, c.want)
		}
	}
	for _, rate := range []int{1, 3, 7, 100, 333, 1000, 999_983} {
		r := Rate{rate}
		for k := int64(1); k < 2000; k += 37 {
			d := r.Due(k)
			if r.Count(d) < k || r.Count(d-1) >= k {
				t.Fatalf("rate %d: arrival %d due at %v, but Count there %d and just before %d", rate, k, d, r.Count(d), r.Count(d-1))
			}
		}
	}
}
