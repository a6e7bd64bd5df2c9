// Package latency holds the one read of a latency histogram that offtop
// returns: a pool's queue wait, run and total time per task (package
// pool), a loop's lateness (package looplag) and every latency of
// offtop's own JSON lines are a Summary.
//
// # Units and range
//
// Every figure is a time.Duration. A percentile p is hdrhistogram-go's
// ValueAtPercentile: the value at rank round(p/100 x count), read as the
// highest value its bucket holds, at 2 significant figures (within 1%
// above 51 us); values above 100 s read as 100 s and are counted in
// Clamped. A Summary with Count 0 has no data: its durations are 0 and
// mean "n/a", not zero.
//
// A Summary is a value: safe to copy and to read from any goroutine.
package latency

import (
	"encoding/json"
	"time"

	"github.com/offtop/offtop/internal/jsonenc"
	"github.com/offtop/offtop/internal/millis"
)

// DefaultWindow is the span of the sliding window every windowed Summary
// covers when its options leave the window 0 (package pool, package
// looplag, offtop's --window).
const DefaultWindow = 5 * time.Second

// Summary is a read of one latency histogram.
type Summary struct {
	// P50, P90, P99 and P999 are percentiles, Max the largest value
	// recorded; all 0 when Count is 0.
	P50, P90, P99, P999, Max time.Duration
	// Count is the number of values recorded: tasks for a pool, samples
	// (corrected ones included) for a loop-lag monitor.
	Count int64
	// Clamped counts the values above 100 s, recorded as 100 s.
	Clamped int64
}

// Known reports whether the Summary has data (Count > 0); when it does
// not, show "n/a" rather than its zero durations.
func (s Summary) Known() bool { return s.Count > 0 }

// summaryJSON is a Summary on the wire.
type summaryJSON struct {
	P50     *float64 `json:"p50_ms"`
	P90     *float64 `json:"p90_ms"`
	P99     *float64 `json:"p99_ms"`
	P999    *float64 `json:"p999_ms"`
	Max     *float64 `json:"max_ms"`
	Count   int64    `json:"count"`
	Clamped int64    `json:"clamped,omitempty"`
}

// AppendJSON appends s as {"p50_ms", "p90_ms", "p99_ms", "p999_ms",
// "max_ms", "count", "clamped"}: milliseconds rounded to the microsecond
// (millis.Of), the percentiles null while Count is 0, clamped left out
// while 0. It allocates nothing beyond b's growth.
func (s Summary) AppendJSON(b []byte) []byte {
	ms := func(b []byte, k string, d time.Duration) []byte {
		b = jsonenc.Key(b, k)
		if s.Count <= 0 {
			return append(b, jsonenc.Null...)
		}
		return jsonenc.Float(b, *millis.Of(d))
	}
	b = append(b, '{')
	b = ms(b, "p50_ms", s.P50)
	b = ms(b, "p90_ms", s.P90)
	b = ms(b, "p99_ms", s.P99)
	b = ms(b, "p999_ms", s.P999)
	b = ms(b, "max_ms", s.Max)
	b = jsonenc.Int(jsonenc.Key(b, "count"), s.Count)
	if s.Clamped != 0 {
		b = jsonenc.Int(jsonenc.Key(b, "clamped"), s.Clamped)
	}
	return append(b, '}')
}

// MarshalJSON is AppendJSON's encoding.
func (s Summary) MarshalJSON() ([]byte, error) { return s.AppendJSON(nil), nil }

// UnmarshalJSON decodes what MarshalJSON wrote, to the microsecond (a
// null percentile is 0).
func (s *Summary) UnmarshalJSON(b []byte) error {
	var j summaryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Summary{Count: j.Count, Clamped: j.Clamped,
		P50: millis.Duration(j.P50), P90: millis.Duration(j.P90), P99: millis.Duration(j.P99),
		P999: millis.Duration(j.P999), Max: millis.Duration(j.Max)}
	return nil
}
