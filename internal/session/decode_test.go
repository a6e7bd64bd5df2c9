package session

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/sizing"
)

// TestDecodeRoundTrip pins that a remote dashboard sees what the line
// said: encoding a decoded line gives the same line.
func TestDecodeRoundTrip(t *testing.T) {
	lat := hist.Summary{P50: 1500 * time.Microsecond, P90: 2 * time.Millisecond, P99: 9 * time.Millisecond,
		P999: 12 * time.Millisecond, Max: 20 * time.Millisecond, Count: 400}
	fitted := sizing.Recommend("server", []sizing.Obs{{Workers: 1, ThroughputPerS: 16, HeadlineP99MS: 4, LoopP99MS: 2}})
	s := Snapshot{
		Elapsed: Seconds(3250 * time.Millisecond),
		Sizes: []SizeRow{{Scenario: "server", Workers: 2, GOMAXPROCS: 2, Held: 3 * time.Second,
			Probe:    hist.Summary{P99: 9 * time.Millisecond, Max: 20 * time.Millisecond, Count: 300},
			Headline: hist.Summary{P99: 4 * time.Millisecond, Count: 30}, HeadlineName: "ping",
			Completed: 12, CPUSeconds: 1.5, CPUKnown: true, AnswerKnown: true, AnswerOK: true, Current: true}},
		Search: Search{Running: true, Scenario: "server", Sizes: []int{1, 2, 3, 4}, Step: 2, Hold: Seconds(5 * time.Second), Left: Seconds(1500 * time.Millisecond), Fit: &fitted},
		Run:    Run{Scenario: "server", Look: "look here", PerTask: true},
		Machine: Machine{
			GOMAXPROCS:       2,
			GOMAXPROCSSource: "runtime",
			NumCPU:           2,
			CPULimit:         1.5,
			AffinityCPUs:     2,
			SuggestedWorkers: 1,
			SuggestedRule:    "rule",
		},
		Status: Status{
			Load: "2 clients",
			Readouts: []scenarios.Readout{{Key: "answer_ok", Value: 1, Known: true, Bool: true},
				{Key: "ping_p99_ms", Value: 3.5, Known: true}, {Key: "split", Str: true, Text: "4x8", Known: true}, {Key: "z_unknown"}},
		},
		Pool: Pool{
			Workers:          2,
			QueueDepth:       3,
			Submitted:        10,
			Completed:        6,
			Running:          1,
			ThroughputPerSec: 4.25,
			WorkerSlots:      []int{0, 1},
			WorkerBusy:       []float64{0.5, 1},
			WorkerOnCPU:      []float64{0.25, 0.75},
			WorkerRetiring:   []bool{false, true},
			Task:             lat,
			TaskWait:         lat,
		},
		Loop:    Loop{LoopBusy: 0.125},
		Process: Process{CPUPercent: 150, CPUSeconds: 4.5, RSSBytes: 1 << 20, Goroutines: 12},
		Probes:  Probes{Probe: lat, ProbeRaw: lat, ProbeTotal: lat, Sched: lat},
		Sampling: Sampling{
			Interval:   Millis(250 * time.Millisecond),
			Resolution: Millis(10 * time.Millisecond),
			Window:     Seconds(5 * time.Second),
		},
		History: History{ProbeP99History: []float64{1, 2.5}},
	}
	line, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var d Decoder
	back, err := d.Snapshot(line)
	if err != nil {
		t.Fatal(err)
	}
	if back.Schema != SchemaVersion {
		t.Fatalf("schema %d, want %d", back.Schema, SchemaVersion)
	}
	again, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(line, again) {
		t.Fatalf("round trip changed the line:\n%s\n%s", line, again)
	}
	// The interval is the attached dashboard's time axis: 0 drew a
	// second of the chart in 250 ms (a newcomer found the axis 4x off).
	if back.Interval != s.Interval {
		t.Fatalf("interval %v, want %v", back.Interval, s.Interval)
	}
	if back.Search.Fit == nil || back.Search.Fit.Short() != fitted.Short() || time.Duration(back.Search.Left) != 1500*time.Millisecond {
		t.Fatalf("search %+v", back.Search)
	}
	if got := back.ProbeP99History; len(got) != 1 || got[0] != 2.5 {
		t.Fatalf("history %v, want [2.5] (the line's last point)", got)
	}
	if back, err = d.Snapshot(line); err != nil {
		t.Fatal(err)
	}
	if len(back.ProbeP99History) != 2 || len(back.QueueDepthHistory) != 2 {
		t.Fatalf("history does not grow one point per line: %v", back.ProbeP99History)
	}
}

func TestActionJSON(t *testing.T) {
	for k := range actionNames {
		a := Action{Kind: k, N: -3, Key: "k"}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var got Action
		if err := json.Unmarshal(b, &got); err != nil || got != a {
			t.Fatalf("%s: got %+v, %v", b, got, err)
		}
	}
	var a Action
	if err := json.Unmarshal([]byte(`{"kind":"rm_rf","n":1}`), &a); err == nil {
		t.Fatal("an unknown kind decoded")
	}
}
