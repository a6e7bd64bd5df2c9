package latency

import (
	"encoding/json"
	"testing"
	"time"
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
