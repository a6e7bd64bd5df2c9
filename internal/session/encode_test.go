package session

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/hist"
)

// hostile is a string encoding/json escapes in every way it can.
const hostile = "<a href=\"x\">&\\\b\f\n\r\t\x00\x1f\x7f\u2028\u2029\xff\xc3 é🙂"

// encodeVariants are Snapshots that reach every branch of AppendJSON:
// the goldens, nil against empty slices and maps, NaN and Inf, hostile
// strings, a readout key twice, an unknown summary with a count below 0.
func encodeVariants() map[string]Snapshot {
	full, unknown := goldenFull(), goldenUnknown()
	odd := goldenFull()
	odd.Scenario, odd.Look, odd.Load, odd.SuggestedRule = hostile, hostile, hostile, hostile
	odd.Readouts = Readouts{
		{Key: "dup", Value: 1, Known: true}, {Key: hostile, Str: true, Text: hostile, Known: true},
		{Key: "dup", Value: 2, Known: true}, {Key: "nan", Value: math.NaN(), Known: true},
		{Key: "inf", Value: math.Inf(-1), Known: true}, {Key: "big", Value: 3e21, Known: true},
		{Key: "tiny", Value: 4e-7, Known: true}, {Key: "", Known: true, Bool: true},
	}
	odd.WorkerSlots, odd.WorkerRetiring, odd.WorkerBusy, odd.WorkerOnCPU = []int{}, []bool{}, Shares{math.NaN(), math.Inf(1)}, OptShares{}
	odd.Endpoints = []Endpoint{}
	odd.LoadClient = &LoadClient{Spec: hostile}
	odd.Sizes[0].Served = nil
	odd.Sizes[1].Served = map[string]hist.Summary{"b": {Count: 1, P99: time.Millisecond}, "a": {Count: -2}, hostile: {}}
	odd.Search.Spread = Spreads{nil, {}, {math.NaN(), 1e-9, 1.0005}}
	odd.Task.Count, odd.Task.Clamped = -1, 0
	odd.LoopBusy, odd.CPUPercent, odd.CPUSeconds, odd.ThroughputPerSec = Share(math.NaN()), Percent(math.Inf(1)), CPUTime(math.NaN()), Rate(1e300)
	odd.OthersCPUs, odd.CPULimit, odd.AffinityCPUs, odd.RSSBytes = -0.5, -1, -3, -7
	odd.ProbeP99History = nil
	odd.Search = Search{}
	nilReadouts := goldenUnknown()
	nilReadouts.Readouts, nilReadouts.Sizes = Readouts{}, SizeRows{}
	return map[string]Snapshot{"full": full, "unknown": unknown, "odd": odd, "empty": {}, "empty-not-nil": nilReadouts}
}

// TestAppendJSONIsEncodingJSON holds Snapshot.AppendJSON to what
// encoding/json writes for the same Snapshot by its field tags, and the
// hand-written parts below it (extra, sizes, the search's spread) to
// encoding/json over the forms they stand for.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	type plain Snapshot // encoding/json by the tags, not AppendJSON
	for name, s := range encodeVariants() {
		want, err := json.Marshal(plain(s))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := s.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("%s:\nAppendJSON    %s\nencoding/json %s", name, got, want)
		}
		if got := s.Readouts.appendJSON(nil); string(got) != string(readoutsByMap(t, s.Readouts)) {
			t.Errorf("%s: extra %s, as a map %s", name, got, readoutsByMap(t, s.Readouts))
		}
		for i, r := range s.Sizes {
			want, err := json.Marshal(r.JSON())
			if err != nil {
				t.Fatal(err)
			}
			if got := r.JSON().appendJSON(nil); string(got) != string(want) {
				t.Errorf("%s: sizes[%d] %s, encoding/json %s", name, i, got, want)
			}
		}
		if got, want := s.Search.Spread.appendJSON(nil), spreadsByPointers(t, s.Search.Spread); string(got) != string(want) {
			t.Errorf("%s: spread %s, encoding/json %s", name, got, want)
		}
	}
}

// readoutsByMap is extra as encoding/json writes a map of the readouts.
func readoutsByMap(t *testing.T, rs Readouts) []byte {
	m := make(map[string]any, len(rs))
	for _, r := range rs {
		switch {
		case !r.Known, math.IsNaN(r.Value) && !r.Bool && !r.Str, math.IsInf(r.Value, 0) && !r.Bool && !r.Str:
			m[r.Key] = nil
		case r.Bool:
			m[r.Key] = r.Value != 0
		case r.Str:
			m[r.Key] = r.Text
		default:
			m[r.Key] = round3(r.Value)
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// spreadsByPointers is s as encoding/json writes [][]*float64, nil for
// NaN and Inf.
func spreadsByPointers(t *testing.T, s Spreads) []byte {
	out := make([][]*float64, len(s))
	for i, v := range s {
		out[i] = make([]*float64, len(v))
		for k, x := range v {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				r := round3(x)
				out[i][k] = &r
			}
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
