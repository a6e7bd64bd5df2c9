package hist

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestPercentileRuleAsDocumented: docs/json-lines.md states the rank rule
// every percentile follows with an example ("p99 of 160 values is the
// 158th smallest"); a Recorder's window, its total, an Exact and
// Summarize all read that value (the highest its bucket holds).
func TestPercentileRuleAsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/json-lines.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`p(\d+) of (\d+) values is the (\d+)th smallest`).FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/json-lines.md states no percentile example")
	}
	p, _ := strconv.Atoi(string(m[1]))
	n, _ := strconv.Atoi(string(m[2]))
	rank, _ := strconv.Atoi(string(m[3]))
	if p != 99 {
		t.Fatalf("the example is p%d; this test reads p99", p)
	}
	c := &fakeClock{t: time.Unix(1000, 0)}
	r := NewRecorder(time.Minute, c.now)
	e := NewExact()
	h := NewHistogram()
	// 2% apart, so no two share a bucket (buckets are under 1% wide)
	value := func(i int) int64 { return int64(float64(time.Millisecond) * math.Pow(1.02, float64(i))) }
	for i := 1; i <= n; i++ {
		r.Record(value(i))
		e.Record(value(i))
		_ = h.RecordValue(value(i))
	}
	one := NewHistogram()
	_ = one.RecordValue(value(rank))
	want := time.Duration(one.Max()) // the highest value of its bucket
	for what, got := range map[string]time.Duration{
		"window": r.Window().P99, "total": r.Total().P99, "exact": e.Summary().P99, "Summarize": Summarize(h).P99,
	} {
		if got != want {
			t.Errorf("%s: p99 of %d values = %v, want %v (the %dth value's bucket)", what, n, got, want, rank)
		}
	}
}
