// Package pace is offtop's one schedule: events due at t0 + k*Period for
// k = 1, 2, ..., as pure functions of the time elapsed since t0, so the
// code that waits (a probe, a sampler, a meter) only reads its clock and
// asks, and a table test of the schedule needs no clock. The shape is
// tsenart/vegeta's Pacer (lib/pacer.go: Pace(elapsed, hits) returns how
// long to wait), for offtop's rule: an event that ran late skips the due
// times it passed, and says how many, instead of bunching up to catch up
// (time.Ticker drops them silently). Every is a periodic schedule (a probe,
// a sampler, a meter); Rate is an open-loop stream of arrivals (a load
// generator), whose due arrivals are all sent, none skipped.
package pace

import "time"

// Every is a schedule of one event every Period (> 0) from t0: event k is
// due k*Period after t0. The zero value is not usable.
type Every struct {
	Period time.Duration
}

// Due is how long after t0 event k is due: k*Period.
func (e Every) Due(k int64) time.Duration { return time.Duration(k) * e.Period }

// Next returns the event to wait for after event k ran at elapsed (time
// since t0; a negative elapsed, a clock step back, counts as t0): the first
// one due strictly after elapsed, and at least k+1, and how many due times
// after k were skipped (missed: 0 when the event ran before the next one
// was due).
func (e Every) Next(elapsed time.Duration, k int64) (next, missed int64) {
	next = k + 1
	if elapsed >= 0 {
		next = max(next, int64(elapsed/e.Period)+1)
	}
	return next, next - k - 1
}

// Pace is Next plus how long to wait from elapsed until that event is due:
// always > 0, as the event is due strictly after elapsed.
func (e Every) Pace(elapsed time.Duration, k int64) (next, missed int64, wait time.Duration) {
	next, missed = e.Next(elapsed, k)
	return next, missed, e.Due(next) - elapsed
}

// Rate is an open-loop stream of PerSecond events a second from t0: event
// k (k = 1, 2, ...) is due k/PerSecond seconds after t0, rounded up to the
// ns. All arithmetic is in integer ns, so Count and Due agree exactly.
// PerSecond <= 0 is a stream with nothing due.
type Rate struct {
	PerSecond int
}

// Count is how many events are due by elapsed (0 for elapsed <= 0):
// floor(elapsed * PerSecond / 1s).
func (r Rate) Count(elapsed time.Duration) int64 {
	if elapsed <= 0 || r.PerSecond <= 0 {
		return 0
	}
	n := int64(r.PerSecond)
	// Whole seconds and the rest apart, so elapsed*n cannot overflow.
	s, rest := int64(elapsed/time.Second), int64(elapsed%time.Second)
	return s*n + rest*n/int64(time.Second)
}

// Due is how long after t0 event k is due: the least elapsed with
// Count(elapsed) >= k (0 for k <= 0; PerSecond must be > 0).
func (r Rate) Due(k int64) time.Duration {
	if k <= 0 {
		return 0
	}
	n := int64(r.PerSecond)
	s, rest := k/n, k%n
	return time.Duration(s)*time.Second + time.Duration((rest*int64(time.Second)+n-1)/n)
}
