package hist

import (
	"encoding/json"
	"math"
	"time"
)

// summaryJSON is a Summary on the wire: milliseconds to the microsecond,
// the percentiles null while Count is 0 (an empty histogram has none).
type summaryJSON struct {
	P50   *float64 `json:"p50_ms"`
	P90   *float64 `json:"p90_ms"`
	P99   *float64 `json:"p99_ms"`
	P999  *float64 `json:"p999_ms"`
	Max   *float64 `json:"max_ms"`
	Count int64    `json:"count"`
	// Clamped counts values above the histogram's range.
	Clamped int64 `json:"clamped,omitempty"`
}

// MarshalJSON encodes s as {"p50_ms", "p90_ms", "p99_ms", "p999_ms",
// "max_ms", "count", "clamped"}: milliseconds rounded to the microsecond,
// the percentiles null while Count is 0, clamped left out while 0.
func (s Summary) MarshalJSON() ([]byte, error) {
	j := summaryJSON{Count: s.Count, Clamped: s.Clamped}
	if s.Count > 0 {
		j.P50, j.P90, j.P99, j.P999, j.Max = MS(s.P50), MS(s.P90), MS(s.P99), MS(s.P999), MS(s.Max)
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes what MarshalJSON wrote, to the microsecond (a
// null percentile is 0).
func (s *Summary) UnmarshalJSON(b []byte) error {
	var j summaryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Summary{Count: j.Count, Clamped: j.Clamped,
		P50: FromMS(j.P50), P90: FromMS(j.P90), P99: FromMS(j.P99), P999: FromMS(j.P999), Max: FromMS(j.Max)}
	return nil
}

// MS is d in milliseconds rounded to the microsecond, as every latency
// leaves offtop.
func MS(d time.Duration) *float64 {
	v := math.Round(float64(d)/1e3) / 1e3
	return &v
}

// FromMS is the Duration of a figure MS wrote; 0 for nil.
func FromMS(v *float64) time.Duration {
	if v == nil {
		return 0
	}
	return time.Duration(math.Round(*v * float64(time.Millisecond)))
}
