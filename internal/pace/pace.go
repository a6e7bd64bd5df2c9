// Package pace is offtop's one schedule: events due at t0 + k*Period for
// k = 1, 2, ..., as pure functions of the time elapsed since t0, so the
// code that waits (a probe, a sampler, a meter) only reads its clock and
// asks, and a table test of the schedule needs no clock. The shape is
// tsenart/vegeta's Pacer (lib/pacer.go: Pace(elapsed, hits) returns how
// long to wait), for offtop's rule: an event that ran late skips the due
// times it passed, and says how many, instead of bunching up to catch up
// (time.Ticker drops them silently).
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
