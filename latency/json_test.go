package latency

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/millis"
)

// TestSummaryJSON: a Summary encodes in ms to the microsecond, clamped
// only when non-zero, percentiles null while empty, and decodes back to
// the microsecond.
func TestSummaryJSON(t *testing.T) {
	s := Summary{P50: 1234567, P90: 2 * time.Millisecond, P99: 9*time.Millisecond + 499, P999: time.Second, Max: 1500 * time.Microsecond,
		Count: 40, Clamped: 2}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"p50_ms":1.235,"p90_ms":2,"p99_ms":9,"p999_ms":1000,"max_ms":1.5,"count":40,"clamped":2}`; string(b) != want {
		t.Fatalf("%s, want %s", b, want)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if want := (Summary{P50: 1235 * time.Microsecond, P90: 2 * time.Millisecond, P99: 9 * time.Millisecond, P999: time.Second,
		Max: 1500 * time.Microsecond, Count: 40, Clamped: 2}); back != want {
		t.Fatalf("decoded %+v, want %+v", back, want)
	}
	if b, _ := json.Marshal(Summary{}); string(b) != `{"p50_ms":null,"p90_ms":null,"p99_ms":null,"p999_ms":null,"max_ms":null,"count":0}` {
		t.Fatalf("empty: %s", b)
	}
}

// TestAppendJSONAsTheWireStruct holds AppendJSON to encoding/json over
// summaryJSON, the form UnmarshalJSON reads, for known, unknown and
// clamped Summaries.
func TestAppendJSONAsTheWireStruct(t *testing.T) {
	for _, s := range []Summary{
		{},
		{P50: 1500 * time.Nanosecond, P90: 2 * time.Millisecond, P99: 1234567 * time.Nanosecond, P999: time.Second, Max: 100 * time.Second, Count: 7},
		{P50: 1, P90: 499, P99: 500, P999: 12345678901, Max: 3 * time.Hour, Count: 1 << 40, Clamped: 3},
		{Count: -1, P99: time.Millisecond},
	} {
		j := summaryJSON{Count: s.Count, Clamped: s.Clamped}
		if s.Count > 0 {
			j.P50, j.P90, j.P99, j.P999, j.Max = millis.Of(s.P50), millis.Of(s.P90), millis.Of(s.P99), millis.Of(s.P999), millis.Of(s.Max)
		}
		want, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("%+v: AppendJSON %s, encoding/json %s", s, got, want)
		}
	}
}
