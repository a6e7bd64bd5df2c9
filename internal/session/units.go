package session

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/offtop/offtop/internal/jsonenc"
	"github.com/offtop/offtop/internal/workload"
)

// The unit types of a Snapshot: each says in its type what its figure is
// and encodes itself in the JSON Lines form (docs/json-lines.md): its
// appendJSON appends it (Snapshot.AppendJSON), its MarshalJSON returns
// the same bytes. A figure
// that may be unknown says how in its type; unknown encodes null, and so
// does a float that is NaN or infinite: every encoder gives valid JSON
// whatever its value.

var null = []byte("null")

// Schema is the schema field: it encodes SchemaVersion whatever it holds;
// decoded, it holds the version the line said (0: none).
type Schema int

// MarshalJSON writes SchemaVersion.
func (s Schema) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

func (Schema) appendJSON(b []byte) []byte { return jsonenc.Int(b, SchemaVersion) }

// Seconds is a duration that encodes as a number of seconds, to the
// millisecond.
type Seconds time.Duration

// Seconds is d in seconds, unrounded.
func (d Seconds) Seconds() float64 { return time.Duration(d).Seconds() }

// String formats d as time.Duration does.
func (d Seconds) String() string { return time.Duration(d).String() }

// MarshalJSON writes d in seconds, to the millisecond.
func (d Seconds) MarshalJSON() ([]byte, error) { return d.appendJSON(nil), nil }

func (d Seconds) appendJSON(b []byte) []byte { return jsonenc.Float(b, round3(d.Seconds())) }

// UnmarshalJSON reads a number of seconds, to the nanosecond.
func (d *Seconds) UnmarshalJSON(b []byte) error {
	v, err := float(b, 0)
	*d = Seconds(math.Round(v * float64(time.Second)))
	return err
}

// Millis is a duration that encodes as a number of milliseconds, exact to
// the nanosecond.
type Millis time.Duration

// String formats d as time.Duration does.
func (d Millis) String() string { return time.Duration(d).String() }

// MarshalJSON writes d in milliseconds.
func (d Millis) MarshalJSON() ([]byte, error) { return d.appendJSON(nil), nil }

func (d Millis) appendJSON(b []byte) []byte {
	return jsonenc.Float(b, float64(d)/float64(time.Millisecond))
}

// UnmarshalJSON reads a number of milliseconds, to the nanosecond.
func (d *Millis) UnmarshalJSON(b []byte) error {
	v, err := float(b, 0)
	*d = Millis(math.Round(v * float64(time.Millisecond)))
	return err
}

// Share is a fraction 0..1 that encodes to 3 decimals.
type Share float64

// MarshalJSON writes s to 3 decimals (NaN and Inf as null).
func (s Share) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

func (s Share) appendJSON(b []byte) []byte { return jsonenc.Float(b, round3(float64(s))) }

// Shares is one share 0..1 per worker, each to 3 decimals in JSON (NaN,
// unknown, as null); nil (no workers) encodes [].
type Shares []float64

// MarshalJSON writes s rounded, [] when nil.
func (s Shares) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

func (s Shares) appendJSON(b []byte) []byte { return appendRounded(b, s) }

// OptShares is one share 0..1 per worker, nil when unknown (the OS gives
// no thread clock): nil encodes null.
type OptShares []float64

// MarshalJSON writes s rounded, null when nil.
func (s OptShares) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

func (s OptShares) appendJSON(b []byte) []byte {
	if s == nil {
		return append(b, jsonenc.Null...)
	}
	return appendRounded(b, s)
}

// Rate is a figure per second that encodes to 3 decimals.
type Rate float64

// MarshalJSON writes r to 3 decimals (NaN and Inf as null).
func (r Rate) MarshalJSON() ([]byte, error) { return r.appendJSON(nil), nil }

func (r Rate) appendJSON(b []byte) []byte { return jsonenc.Float(b, round3(float64(r))) }

// CPUTime is process CPU time in seconds; it encodes to the millisecond.
type CPUTime float64

// MarshalJSON writes t to 3 decimals (NaN and Inf as null).
func (t CPUTime) MarshalJSON() ([]byte, error) { return t.appendJSON(nil), nil }

func (t CPUTime) appendJSON(b []byte) []byte { return jsonenc.Float(b, round3(float64(t))) }

// Percent is CPU time over wall time, 100 = one core; negative (-1) when
// unknown, which encodes null. It encodes to 3 decimals.
type Percent float64

// MarshalJSON writes p to 3 decimals, null when negative.
func (p Percent) MarshalJSON() ([]byte, error) { return p.appendJSON(nil), nil }

func (p Percent) appendJSON(b []byte) []byte {
	if p < 0 {
		return append(b, jsonenc.Null...)
	}
	return jsonenc.Float(b, round3(float64(p)))
}

// UnmarshalJSON reads a number; null is unknown (-1).
func (p *Percent) UnmarshalJSON(b []byte) error {
	v, err := float(b, -1)
	*p = Percent(v)
	return err
}

// Bytes is a size in bytes; negative (-1) when unknown, which encodes null.
type Bytes int64

// MiB is b in mebibytes (2^20 bytes).
func (b Bytes) MiB() float64 { return float64(b) / (1 << 20) }

// MarshalJSON writes b, null when negative.
func (b Bytes) MarshalJSON() ([]byte, error) { return b.appendJSON(nil), nil }

func (b Bytes) appendJSON(d []byte) []byte {
	if b < 0 {
		return append(d, jsonenc.Null...)
	}
	return jsonenc.Int(d, int64(b))
}

// UnmarshalJSON reads an integer; null is unknown (-1).
func (b *Bytes) UnmarshalJSON(d []byte) error {
	if bytes.Equal(d, null) {
		*b = -1
		return nil
	}
	var v int64
	err := json.Unmarshal(d, &v)
	*b = Bytes(v)
	return err
}

// CPUQuota is the CPUs a cgroup quota allows, fractional; 0 when there is
// none or it is unknown, which encodes null.
type CPUQuota float64

// MarshalJSON writes q exactly, null when not positive.
func (q CPUQuota) MarshalJSON() ([]byte, error) { return q.appendJSON(nil), nil }

func (q CPUQuota) appendJSON(b []byte) []byte {
	if q <= 0 {
		return append(b, jsonenc.Null...)
	}
	return jsonenc.Float(b, float64(q))
}

// OptCPUs is a number of CPUs' worth of time, fractional; negative (-1)
// when unknown, which encodes null. It encodes to 3 decimals.
type OptCPUs float64

// MarshalJSON writes c to 3 decimals, null when negative.
func (c OptCPUs) MarshalJSON() ([]byte, error) { return c.appendJSON(nil), nil }

func (c OptCPUs) appendJSON(b []byte) []byte {
	if c < 0 {
		return append(b, jsonenc.Null...)
	}
	return jsonenc.Float(b, round3(float64(c)))
}

// UnmarshalJSON reads a number; null is unknown (-1).
func (c *OptCPUs) UnmarshalJSON(b []byte) error {
	v, err := float(b, -1)
	*c = OptCPUs(v)
	return err
}

// Spreads are figures per item, several each (the search's headline p99
// per size, per pass); NaN is no figure, null in JSON. They encode to 3
// decimals.
type Spreads [][]float64

// MarshalJSON writes the lists, NaN as null.
func (s Spreads) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

func (s Spreads) appendJSON(b []byte) []byte { return jsonenc.Array(b, s, appendRounded) }

// UnmarshalJSON reads the lists, null as NaN.
func (s *Spreads) UnmarshalJSON(b []byte) error {
	var in [][]*float64
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*s = make(Spreads, len(in))
	for i, v := range in {
		(*s)[i] = make([]float64, len(v))
		for k, x := range v {
			(*s)[i][k] = math.NaN()
			if x != nil {
				(*s)[i][k] = *x
			}
		}
	}
	return nil
}

// CPUCount is a number of CPUs; 0 when unknown, which encodes null.
type CPUCount int

// MarshalJSON writes n, null when not positive.
func (n CPUCount) MarshalJSON() ([]byte, error) { return n.appendJSON(nil), nil }

func (n CPUCount) appendJSON(b []byte) []byte {
	if n <= 0 {
		return append(b, jsonenc.Null...)
	}
	return jsonenc.Int(b, int64(n))
}

// Series is a chart's series, oldest first, one point per sample (NaN: no
// point). JSON carries only its newest point, to 3 decimals (null when
// empty or NaN); decoded, it is a series of that one point (NaN for null).
type Series []float64

// Last is the newest point; NaN when empty.
func (s Series) Last() float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	return s[len(s)-1]
}

// MarshalJSON writes the newest point.
func (s Series) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

func (s Series) appendJSON(b []byte) []byte { return jsonenc.Float(b, round3(s.Last())) }

// UnmarshalJSON reads one point.
func (s *Series) UnmarshalJSON(b []byte) error {
	v, err := float(b, math.NaN())
	*s = Series{v}
	return err
}

// Readouts are the scenario's readouts in order. In JSON they are the
// object extra, key to value: a number to 3 decimals, true/false, a
// string, or null while unknown. Decoded, they come back sorted by key,
// with the key as label and the unit its key names (workload.UnitOf).
type Readouts []workload.Readout

// MarshalJSON writes the extra object, {} when there are none.
func (rs Readouts) MarshalJSON() ([]byte, error) { return rs.appendJSON(nil), nil }

// appendJSON writes the keys in byte order, each once: of readouts with
// one key, the last (as a map keeps it).
func (rs Readouts) appendJSON(b []byte) []byte {
	var buf [32]int
	order := buf[:0]
	for i := range rs {
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(i, j int) int { return strings.Compare(rs[i].Key, rs[j].Key) })
	b = append(b, '{')
	for n, i := range order {
		r := rs[i]
		if n+1 < len(order) && rs[order[n+1]].Key == r.Key {
			continue // a later one of this key stands
		}
		b = jsonenc.Key(b, r.Key)
		switch {
		case !r.Known:
			b = append(b, jsonenc.Null...)
		case r.Bool:
			b = jsonenc.Bool(b, r.Value != 0)
		case r.Str:
			b = jsonenc.String(b, r.Text)
		default:
			b = jsonenc.Float(b, round3(r.Value))
		}
	}
	return append(b, '}')
}

// UnmarshalJSON reads the extra object.
func (rs *Readouts) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	*rs = nil
	for _, k := range keys {
		r := workload.Readout{Key: k, Label: workload.LabelOf(k), Unit: workload.UnitOf(k)}
		switch v := m[k].(type) {
		case bool:
			r.Bool, r.Known, r.Unit = true, true, ""
			if v {
				r.Value = 1
			}
		case float64:
			r.Value, r.Known = v, true
		case string:
			r.Str, r.Text, r.Known, r.Unit = true, v, true, ""
		}
		*rs = append(*rs, r)
	}
	return nil
}

// SizeRows are the per-size rows; nil encodes [].
type SizeRows []SizeRow

// MarshalJSON writes the rows, [] when nil.
func (rs SizeRows) MarshalJSON() ([]byte, error) { return rs.appendJSON(nil), nil }

func (rs SizeRows) appendJSON(b []byte) []byte {
	return jsonenc.Array(b, rs, func(b []byte, r SizeRow) []byte { return r.JSON().appendJSON(b) })
}

// MarshalJSON writes r as SizeJSON.
func (r SizeRow) MarshalJSON() ([]byte, error) { return r.JSON().appendJSON(nil), nil }

// UnmarshalJSON reads a SizeJSON (SizeJSON.Row).
func (r *SizeRow) UnmarshalJSON(b []byte) error {
	var j SizeJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = j.Row()
	return nil
}

// MarshalJSON writes s with its tags; null while no search has run (Sizes
// nil).
func (s Search) MarshalJSON() ([]byte, error) { return s.appendJSON(nil), nil }

// appendJSON is encoding/json's (a search is rare: its reflection is
// paid only while one has run).
func (s Search) appendJSON(b []byte) []byte {
	if s.Sizes == nil {
		return append(b, jsonenc.Null...)
	}
	type plain Search // without this method
	j, err := json.Marshal(plain(s))
	if err != nil {
		return append(b, jsonenc.Null...) // a NaN in Fit: never made
	}
	return append(b, j...)
}

// float reads a JSON number; null gives ifNull.
func float(b []byte, ifNull float64) (float64, error) {
	if bytes.Equal(b, null) {
		return ifNull, nil
	}
	var v float64
	err := json.Unmarshal(b, &v)
	return v, err
}

// round3 is v to 3 decimals; NaN and Inf as they are, and so is a v of
// magnitude 1e15 or more, whole already to a float64's precision (v*1000
// would overflow near the largest).
func round3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) >= 1e15 {
		return v
	}
	return math.Round(v*1000) / 1000
}

// finite3 is round3(v), 0 for NaN and Inf: for a plain float64 field.
func finite3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return round3(v)
}

// appendRounded appends v as a JSON array, each to 3 decimals, NaN and
// Inf as null.
func appendRounded(b []byte, v []float64) []byte {
	return jsonenc.Array(b, v, func(b []byte, x float64) []byte { return jsonenc.Float(b, round3(x)) })
}
