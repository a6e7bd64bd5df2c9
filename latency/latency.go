// Package latency holds the one read of a latency histogram that offtop's
// public packages return: a pool's queue wait, run and total time per
// task (package pool) and a loop's lateness (package looplag) are both a
// Summary.
//
// # Units and range
//
// Every figure is a time.Duration. Percentiles have 2 significant figures
// (within 1% above 51 us); values above 100 s read as 100 s. A Summary
// with Count 0 has no data: its durations are 0 and mean "n/a", not zero.
//
// A Summary is a value: safe to copy and to read from any goroutine.
package latency

import "time"

// Summary is a read of one latency histogram.
type Summary struct {
	// P50, P90, P99 and P999 are percentiles, Max the largest value
	// recorded; all 0 when Count is 0.
	P50, P90, P99, P999, Max time.Duration
	// Count is the number of values recorded: tasks for a pool, samples
	// (corrected ones included) for a loop-lag monitor.
	Count int64
}

// Known reports whether the Summary has data (Count > 0); when it does
// not, show "n/a" rather than its zero durations.
func (s Summary) Known() bool { return s.Count > 0 }
