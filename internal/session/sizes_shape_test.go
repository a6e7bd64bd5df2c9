//go:build shape

package session

import (
	"math"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/shape"
)

// runScript runs scenario from workers[0], switching to workers[i] at
// at[i], for total, and returns the last sample's size rows as JSON.
func runScript(t *testing.T, scenario string, at []time.Duration, workers []int, total time.Duration) []SizeJSON {
	t.Helper()
	s, err := New(Config{Scenario: scenario, Workers: workers[0]})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	for i := 1; i < len(at); i++ {
		time.Sleep(time.Until(start.Add(at[i])))
		if err := s.Apply(Action{Kind: SetWorkers, N: workers[i]}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Until(start.Add(total)))
	var rows []SizeJSON
	for _, r := range s.Snapshot().Sizes {
		rows = append(rows, r.JSON())
	}
	return rows
}

// TestServerSizesShape: server with
// "0s:0 8s:1 16s:2 24s:4" for 34s has a row per size, each held 8 +- 1.5s
// (the last about 10), and inline's ping p99 is at least 10 times the
// 1-worker row's.
func TestServerSizesShape(t *testing.T) {
	shape.Judge(t)
	at := []time.Duration{0, 8 * time.Second, 16 * time.Second, 24 * time.Second}
	rows := runScript(t, "server", at, []int{0, 1, 2, 4}, 34*time.Second)
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4: %+v", len(rows), rows)
	}
	for i, r := range rows {
		want := 8.0
		if i == 3 {
			want = 10
		}
		if math.Abs(r.HeldS-want) > 1.5 {
			t.Errorf("row %d workers held %.3fs, want %v +- 1.5", r.Workers, r.HeldS, want)
		}
		t.Logf("workers %d: held %.2fs, ping p99 %v ms over %d, probe p99 %v ms", r.Workers, r.HeldS, deref(r.HeadlineP99MS), r.HeadlineCount, deref(r.ProbeP99MS))
	}
	p0, p1 := rows[0].HeadlineP99MS, rows[1].HeadlineP99MS
	if p0 == nil || p1 == nil || *p0 < 10**p1 {
		t.Errorf("inline ping p99 %v ms, 1 worker %v ms: want at least 10x", deref(p0), deref(p1))
	}
}

// TestStallSizesShape is the second: stall (100ms every 1s) with
// "0s:1 10s:2" for 21s reads, per size, a probe p99 within 10% of 90ms
// (the truth of a 100ms stall sampled every 10ms, corrected).
func TestStallSizesShape(t *testing.T) {
	shape.Judge(t)
	rows := runScript(t, "stall", []time.Duration{0, 10 * time.Second}, []int{1, 2}, 21*time.Second)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2: %+v", len(rows), rows)
	}
	for _, r := range rows {
		t.Logf("workers %d: held %.2fs, probe p99 %v ms over %d", r.Workers, r.HeldS, deref(r.ProbeP99MS), r.ProbeCount)
		if r.ProbeP99MS == nil || math.Abs(*r.ProbeP99MS-90) > 9 {
			t.Errorf("workers %d: probe p99 %v ms, want 90 +- 9", r.Workers, deref(r.ProbeP99MS))
		}
	}
}

func deref(v *float64) any {
	if v == nil {
		return "n/a"
	}
	return *v
}
