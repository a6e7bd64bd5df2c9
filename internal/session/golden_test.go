package session

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/sizing"
	"github.com/offtop/offtop/internal/workload"
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
	fitted := sizing.Recommend(workload.RuleLatency, []sizing.Obs{{Workers: 1, ThroughputPerS: 16, HeadlineP99MS: 4, LoopP99MS: 2},
		{Workers: 2, ThroughputPerS: 31, HeadlineP99MS: 5, LoopP99MS: 3}})
	return Snapshot{
		Elapsed:  Seconds(3250*time.Millisecond + 123456),
		Headline: lat(8*time.Millisecond, 30),
		Sizes: []SizeRow{
			{Scenario: "server", Workers: 2, GOMAXPROCS: 4, Held: 3*time.Second + 4567890,
				Probe:    hist.Summary{P99: 9*time.Millisecond + 4321, Max: 20 * time.Millisecond, Count: 300},
				Headline: hist.Summary{P99: 4 * time.Millisecond, Count: 30}, HeadlineName: "ping",
				Completed: 12, CPUSeconds: 1.5, CPUKnown: true, AnswerKnown: true, AnswerOK: true, Current: true, Unsettled: 3,
				Served:        map[string]hist.Summary{"ping": {P50: time.Millisecond, P90: 2 * time.Millisecond, P99: 3 * time.Millisecond, P999: 3 * time.Millisecond, Max: 3 * time.Millisecond, Count: 25}},
				OthersSeconds: 4.5, OthersWall: 3 * time.Second, OthersKnown: true, MachineBusy: true},
			{Scenario: "server", Workers: 3, GOMAXPROCS: 4, Held: time.Second, HeadlineName: "ping"},
		},
		Search: Search{Running: true, Scenario: "server", Sizes: []int{1, 2, 3, 4}, Step: 2, Hold: Seconds(5 * time.Second), Left: Seconds(1500*time.Millisecond + 2345678), Canceled: true, Err: "failed", Fit: &fitted,
			Pass: 1, MaxPasses: 3, Spread: Spreads{{1.5, nan()}, {2.25}}, PassPicks: []int{1}, OthersMaxCPUs: 1.25, BusyHolds: 1, Uncertain: "busy"},
		Endpoints: []Endpoint{{Route: "GET /hash/{n}", Count: 41, RatePerS: 20.123456, Latency: lat(20*time.Millisecond, 40),
			Status: StatusCounts{S1xx: 1, S2xx: 36, S3xx: 2, S4xx: 1, S5xx: 1}}},
		LoadClient: &LoadClient{Spec: "/hash/7=20/s", Targets: []LoadTarget{{Target: "/hash/7", Route: "GET /hash/{n}", AskedPerS: 20,
			Sent: 44, InFlight: 1, RatePerS: 19.876543, Latency: lat(25*time.Millisecond, 40), Status: StatusCounts{S2xx: 40, S5xx: 1},
			Errors: 2, ErrorsWindow: 1, Error: "connection reset", Late: 3, LateMax: Millis(7500 * time.Microsecond)}}},
		Run: Run{Scenario: "server", Look: "look here", Paused: true, PerTask: true},
		Machine: Machine{
			GOMAXPROCS:        4,
			GOMAXPROCSSource:  "offtop",
			RuntimeGOMAXPROCS: 5,
			NumCPU:            6,
			CPULimit:          1.5,
			AffinityCPUs:      7,
			UsableCPUs:        1.5,
			CPUWarning:        "warn",
			SuggestedWorkers:  8,
			SuggestedRule:     "rule",
			Oversubscribed:    true,
			OthersCPUs:        1.625,
			OthersOf:          2,
			MachineBusy:       true,
		},
		Status: Status{
			Load: "2 clients",
			Readouts: []scenarios.Readout{
				{Key: "answer_ok", Label: "answer ok", Value: 1, Known: true, Bool: true},
				{Key: "ping_p99_ms", Label: "ping p99", Value: 3.45678, Known: true},
				{Key: "split", Label: "split", Str: true, Text: "4x8", Known: true},
				{Key: "z_unknown", Label: "unknown"},
				{Key: "b_false", Label: "false one", Known: true, Bool: true},
			},
		},
		Pool: Pool{
			Workers:          3,
			QueueDepth:       11,
			Submitted:        101,
			Completed:        61,
			Failed:           12,
			Running:          13,
			Rejected:         14,
			Replaced:         15,
			TimedOut:         16,
			Canceled:         23,
			Abandoned:        17,
			Stuck:            18,
			ThroughputPerSec: 4.25678,
			WorkerSlots:      []int{0, 2, 5},
			WorkerBusy:       []float64{0.5, 0.12345, 1},
			WorkerOnCPU:      []float64{0.25, 0.75555, 0.0004},
			WorkerRetiring:   []bool{false, true, false},
			Task:             lat(6*time.Millisecond, 50),
			TaskWait:         lat(7*time.Millisecond, 40),
			TaskRun:          lat(8*time.Millisecond, 30),
		},
		Loop: Loop{LoopBusy: 0.1256, LoopQueued: 19},
		Process: Process{
			CPUPercent: 150.12345,
			CPUSeconds: 4.56789,
			RSSBytes:   Bytes(3<<20 + 17),
			Goroutines: 21,
		},
		Probes: Probes{
			Probe:        lat(time.Millisecond, 400),
			ProbeRaw:     lat(2*time.Millisecond, 300),
			ProbeTotal:   lat(3*time.Millisecond, 900),
			ProbeMissed:  22,
			ProbeStalled: Millis(45*time.Millisecond + 678),
			Sched:        lat(4*time.Millisecond, 200),
			SchedRuntime: lat(5*time.Microsecond, 100),
		},
		Sampling: Sampling{
			Interval:      Millis(250 * time.Millisecond),
			Resolution:    Millis(10 * time.Millisecond),
			Window:        Seconds(5 * time.Second),
			SamplesMissed: 23,
		},
		History: History{
			ProbeP99History:   []float64{1, 2.5, 3.45678},
			QueueDepthHistory: []float64{1, 2, 3},
			WorkersHistory:    []float64{3, 3, 3},
		},
		Link: Link{Remote: "127.0.0.1:1", Disconnected: time.Unix(1, 0), Retry: "retry"},
	}
}

// goldenUnknown is a Snapshot whose figures are all unknown or empty: -1
// RSS and CPU, nil on-CPU, no readouts, sizes, search or history.
func goldenUnknown() Snapshot {
	return Snapshot{
		Run:     Run{Scenario: "count"},
		Machine: Machine{GOMAXPROCS: 2, NumCPU: 2, OthersCPUs: -1},
		Pool:    Pool{Workers: 0},
		Process: Process{CPUPercent: -1, RSSBytes: -1},
		Sampling: Sampling{
			Window:     Seconds(5 * time.Second),
			Resolution: Millis(10 * time.Millisecond),
		},
		History: History{ProbeP99History: []float64{1, 2, nan()}},
	}
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
			// What attach decodes from the golden line encodes as it again.
			var d Decoder
			back, err := d.Snapshot(want)
			if err != nil {
				t.Fatal(err)
			}
			again, err := json.Marshal(back)
			if err != nil {
				t.Fatal(err)
			}
			var a map[string]any
			if err := json.Unmarshal(again, &a); err != nil {
				t.Fatal(err)
			}
			// Except sizes: a row's Completed comes back as its rate times
			// its held time, rounded to a task (Decoder), so the rate may
			// move in its last digit.
			w0 := maps.Clone(w)
			delete(a, "sizes")
			delete(w0, "sizes")
			if !reflect.DeepEqual(a, w0) {
				t.Errorf("decoded and encoded again:\n%s\nwant\n%s", again, want)
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

// jsonFields walks t's fields as encoding/json does: an embedded struct
// without a tag is flattened, a "-" field left out. It fails t on a field
// without a json tag (its Go name would become a key by accident) and on a
// name used twice (encoding/json would drop both silently).
func jsonFields(tb testing.TB, t reflect.Type, seen map[string]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case name == "-":
		case f.Anonymous && !ok:
			jsonFields(tb, f.Type, seen)
		case !ok || name == "":
			tb.Errorf("%s.%s has no json name", t.Name(), f.Name)
		case seen[name] != "":
			tb.Errorf("json name %q of %s.%s is %s's too", name, t.Name(), f.Name, seen[name])
		default:
			seen[name] = t.Name() + "." + f.Name
		}
	}
}

// TestJSONFieldsAreTheTypes: the Snapshot's JSON keys are exactly the
// json names of its fields (walked from the types), each once, and every
// required field (RequiredJSONFields) is one of them.
func TestJSONFieldsAreTheTypes(t *testing.T) {
	names := map[string]string{}
	jsonFields(t, reflect.TypeFor[Snapshot](), names)
	for _, k := range RequiredJSONFields {
		if names[k] == "" {
			t.Errorf("required field %q is no Snapshot field's json name", k)
		}
	}
	b, err := json.Marshal(goldenFull())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		if names[k] == "" {
			t.Errorf("key %q is in the JSON but no field's json name", k)
		}
	}
	for k, f := range names {
		if _, ok := m[k]; !ok {
			t.Errorf("%s (%q) is not in the JSON", f, k)
		}
	}
}
