package scenarios

import (
	"strconv"
	"time"

	"github.com/offtop/offtop/internal/hist"
)

// Num is a known numeric readout without a unit: a count or a ratio.
func Num(key, label string, v float64) Readout {
	return Readout{Key: key, Label: label, Value: v, Known: true}
}

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
