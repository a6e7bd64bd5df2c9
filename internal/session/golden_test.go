package session

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/sizing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from today's marshal")

// goldenFull is a Snapshot with every field set to a distinct non-zero
// value, sub-millisecond parts included, so a field lost, renamed,
// swapped or rounded differently shows in its JSON.
func goldenFull() Snapshot {
	lat := func(base time.Duration, n int64) hist.Summary {
		return hist.Summary{P50: base + 1234567, P90: 2*base + 7654321, P99: 3*base + 111, P999: 4*base + 999999,
			Max: 5*base + 1, Count: n, Clamped: n / 7}
	}
	fitted := sizing.Recommend("server", []sizing.Obs{{Workers: 1, ThroughputPerS: 16, HeadlineP99MS: 4, LoopP99MS: 2},
		{Workers: 2, ThroughputPerS: 31, HeadlineP99MS: 5, LoopP99MS: 3}})
	return Snapshot{
		Elapsed: 3250*time.Millisecond + 123456, Scenario: "server", Look: "look here", Load: "2 clients",
		Paused: true, PerTask: true,
		Workers: 3, GOMAXPROCS: 4, GOMAXPROCSSource: "offtop", RuntimeGOMAXPROCS: 5, NumCPU: 6, CPULimit: 1.5,
		AffinityCPUs: 7, UsableCPUs: 1.5, CPUWarning: "warn", SuggestedWorkers: 8, SuggestedRule: "rule",
		Oversubscribed: true,
		QueueDepth:     11, Submitted: 101, Completed: 61, Failed: 12, Running: 13, Rejected: 14, Replaced: 15,
		TimedOut: 16, Abandoned: 17, Stuck: 18, ThroughputPerSec: 4.25678,
		WorkerSlots: []int{0, 2, 5}, WorkerBusy: []float64{0.5, 0.12345, 1},
		WorkerOnCPU: []float64{0.25, 0.75555, 0.0004}, WorkerRetiring: []bool{false, true, false},
		LoopBusy: 0.1256, LoopQueued: 19,
		CPUPercent: 150.12345, CPUSeconds: 4.56789, RSSBytes: 3<<20 + 17, Goroutines: 21,
		Probe: lat(time.Millisecond, 400), ProbeRaw: lat(2*time.Millisecond, 300), ProbeTotal: lat(3*time.Millisecond, 900),
		ProbeMissed: 22, ProbeStalled: 45*time.Millisecond + 678,
		Sched: lat(4*time.Millisecond, 200), SchedRuntime: lat(5*time.Microsecond, 100),
		Task: lat(6*time.Millisecond, 50), TaskWait: lat(7*time.Millisecond, 40),
		ProbeP99History:   []float64{1, 2.5, 3.45678},
		QueueDepthHistory: []float64{1, 2, 3}, WorkersHistory: []float64{3, 3, 3},
		Headline: lat(8*time.Millisecond, 30),
		Readouts: []scenarios.Readout{
			{Key: "answer_ok", Label: "answer ok", Value: 1, Known: true, Bool: true},
			{Key: "ping_p99_ms", Label: "ping p99", Value: 3.45678, Known: true},
			{Key: "split", Label: "split", Str: true, Text: "4x8", Known: true},
			{Key: "z_unknown", Label: "unknown"},
			{Key: "b_false", Label: "false one", Known: true, Bool: true},
		},
		Sizes: []SizeRow{
			{Scenario: "server", Workers: 2, GOMAXPROCS: 4, Held: 3*time.Second + 4567890,
				Probe:    hist.Summary{P99: 9*time.Millisecond + 4321, Max: 20 * time.Millisecond, Count: 300},
				Headline: hist.Summary{P99: 4 * time.Millisecond, Count: 30}, HeadlineName: "ping",
				Completed: 12, CPUSeconds: 1.5, CPUKnown: true, AnswerKnown: true, AnswerOK: true, Current: true, Unsettled: 3},
			{Scenario: "server", Workers: 3, GOMAXPROCS: 4, Held: time.Second, HeadlineName: "ping"},
		},
		Search: Search{Running: true, Scenario: "server", Sizes: []int{1, 2, 3, 4}, Step: 2, Hold: 5 * time.Second,
			Left: 1500*time.Millisecond + 2345678, Canceled: true, Err: "failed", Fit: &fitted},
		Interval: 250 * time.Millisecond, Resolution: 10 * time.Millisecond, Window: 5 * time.Second,
		SamplesMissed: 23,
		Remote:        "127.0.0.1:1", Disconnected: time.Unix(1, 0), Retry: "retry",
	}
}

// goldenUnknown is a Snapshot whose figures are all unknown or empty: -1
// RSS and CPU, nil on-CPU, no readouts, sizes, search or history.
func goldenUnknown() Snapshot {
	return Snapshot{Scenario: "count", Workers: 0, GOMAXPROCS: 2, NumCPU: 2, CPUPercent: -1, RSSBytes: -1,
		ProbeP99History: []float64{1, 2, nan()}, Window: 5 * time.Second, Resolution: 10 * time.Millisecond}
}

func nan() float64 { var z float64; return z / z }

// TestJSONGolden pins the headless JSON of a Snapshot byte for byte
// against what the hand-written SnapshotJSON made before the Snapshot
// was nested (testdata/*.golden.json; -update rewrites them), and the
// decoded form: a reader sees the same names and values.
func TestJSONGolden(t *testing.T) {
	for name, s := range map[string]Snapshot{"full": goldenFull(), "unknown": goldenUnknown()} {
		t.Run(name, func(t *testing.T) {
			got, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want = bytes.TrimSuffix(want, []byte("\n"))
			var g, w map[string]any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				for k := range w {
					if !reflect.DeepEqual(g[k], w[k]) {
						t.Errorf("%s: got %v, want %v", k, g[k], w[k])
					}
				}
				for k := range g {
					if _, ok := w[k]; !ok {
						t.Errorf("%s: not in the golden line", k)
					}
				}
			}
		})
	}
}
