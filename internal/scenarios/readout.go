package scenarios

import (
	"strconv"
	"strings"
	"time"

	"github.com/offtop/offtop/internal/hist"
)

// Unit is a readout's unit: what its Value counts.
type Unit string

// The units a readout's Value may be in; the JSON key of a readout ends in
// its unit's suffix (UnitOf).
const (
	// Count is a plain number: a count or a ratio (no suffix).
	Count Unit = ""
	// UnitMS is milliseconds (_ms).
	UnitMS Unit = "ms"
	// UnitSeconds is seconds (_s, _seconds).
	UnitSeconds Unit = "s"
	// UnitPerSec is events per second (_per_s).
	UnitPerSec Unit = "/s"
	// UnitRPS is requests per second (_rps).
	UnitRPS Unit = "rps"
	// UnitPercent is percent, 100 = all (_pct, _percent).
	UnitPercent Unit = "%"
	// UnitBytes is bytes (_bytes); shown in MiB (2^20 bytes).
	UnitBytes Unit = "bytes"
	// UnitKiB is kibibytes, 2^10 bytes (_kb).
	UnitKiB Unit = "KiB"
)

// UnitOf is the unit a readout key names by its suffix (Count when none):
// the naming rule of the extra object (docs/json-lines.md), by which a
// reader of the JSON gets a readout's unit back.
func UnitOf(key string) Unit {
	switch {
	case strings.HasSuffix(key, "_ms"):
		return UnitMS
	case strings.HasSuffix(key, "_per_s"):
		return UnitPerSec
	case strings.HasSuffix(key, "_seconds"), strings.HasSuffix(key, "_s"):
		return UnitSeconds
	case strings.HasSuffix(key, "_rps"):
		return UnitRPS
	case strings.HasSuffix(key, "_pct"), strings.HasSuffix(key, "_percent"):
		return UnitPercent
	case strings.HasSuffix(key, "_bytes"):
		return UnitBytes
	case strings.HasSuffix(key, "_kb"):
		return UnitKiB
	}
	return Count
}

// Num is a known numeric readout without a unit: a count or a ratio.
func Num(key, label string, v float64) Readout {
	return Readout{Key: key, Label: label, Value: v, Known: true}
}

// In gives r the unit u (Num(...).In(UnitRPS)).
func (r Readout) In(u Unit) Readout { r.Unit = u; return r }

// NA is a readout with no value yet.
func NA(key, label string) Readout { return Readout{Key: key, Label: label} }

// Bool is a true/false readout, such as answer_ok.
func Bool(key, label string, v bool) Readout {
	r := Readout{Key: key, Label: label, Known: true, Bool: true}
	if v {
		r.Value = 1
	}
	return r
}

// Str is a text readout: a name or an address, a JSON string.
func Str(key, label, text string) Readout {
	return Readout{Key: key, Label: label, Known: true, Text: text, Str: true}
}

// Millis is a duration readout in ms; n/a when known is false. key must end
// in _ms.
func Millis(key, label string, d time.Duration, known bool) Readout {
	if !known {
		return NA(key, label).In(UnitMS)
	}
	return Num(key, label, float64(d)/float64(time.Millisecond)).In(UnitMS)
}

// Percentiles returns p50, p99 and max readouts of s in ms under
// prefix_p50_ms, prefix_p99_ms and prefix_max_ms; n/a while s is empty.
func Percentiles(prefix, label string, s hist.Summary) []Readout {
	ok := s.Count > 0
	return []Readout{
		Millis(prefix+"_p50_ms", label+" p50", s.P50, ok),
		Millis(prefix+"_p99_ms", label+" p99", s.P99, ok),
		Millis(prefix+"_max_ms", label+" max", s.Max, ok),
	}
}

// si writes a count with an SI suffix: 1.6k, 160M, 2G.
func si(v float64) string {
	for _, u := range []struct {
		div float64
		sfx string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.div {
			return strconv.FormatFloat(v/u.div, 'g', 3, 64) + u.sfx
		}
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// plural picks the word for n things.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// windowRate is the values in r's window per second of the time they
// cover (hist.Recorder.WindowSpan), and the window's summary; 0 per
// second over an empty span.
func windowRate(r *hist.Recorder) (float64, hist.Summary) {
	w, span := r.WindowSpan()
	if span <= 0 {
		return 0, w
	}
	return float64(w.Count) / span.Seconds(), w
}
