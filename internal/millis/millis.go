// Package millis is the one conversion between a time.Duration and the
// milliseconds every latency leaves offtop in (its JSON lines, the
// agent's stream).
package millis

import (
	"math"
	"time"
)

// Of is d in milliseconds rounded to the microsecond.
func Of(d time.Duration) *float64 {
	v := math.Round(float64(d)/1e3) / 1e3
	return &v
}

// Duration is the Duration of a figure Of wrote; 0 for nil.
func Duration(v *float64) time.Duration {
	if v == nil {
		return 0
	}
	return time.Duration(math.Round(*v * float64(time.Millisecond)))
}
