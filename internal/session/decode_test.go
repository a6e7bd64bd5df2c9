package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/sizing"
	"github.com/offtop/offtop/internal/workload"
)

// TestDecodeRoundTrip pins that a remote dashboard sees what the line
// said: encoding a decoded line gives the same line.
func TestDecodeRoundTrip(t *testing.T) {
	lat := hist.Summary{P50: 1500 * time.Microsecond, P90: 2 * time.Millisecond, P99: 9 * time.Millisecond,
		P999: 12 * time.Millisecond, Max: 20 * time.Millisecond, Count: 400}
	fitted := sizing.Recommend(workload.RuleLatency, []sizing.Obs{{Workers: 1, ThroughputPerS: 16, HeadlineP99MS: 4, LoopP99MS: 2}})
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
	if back.Search.Fit == nil || fmt.Sprint(back.Search.Fit.Short(scenarios.Headline("server"))) != fmt.Sprint(fitted.Short(scenarios.Headline("server"))) || time.Duration(back.Search.Left) != 1500*time.Millisecond {
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
	// A kind that takes n needs it (a missing one is not size 0); the
	// others do not.
	for k := range takesN {
		if err := json.Unmarshal([]byte(`{"kind":"`+k.String()+`"}`), &a); err == nil {
			t.Errorf("%s without n decoded as %+v", k, a)
		}
	}
	if err := json.Unmarshal([]byte(`{"kind":"reset"}`), &a); err != nil || a.Kind != Reset {
		t.Errorf("reset without n: %+v, %v", a, err)
	}
}

// TestDecodeCleansControlCharacters: a line with ESC, BEL, CSI (7-bit and
// C1) and OSC sequences in every string, and in every key of extra and
// served, decodes to strings with no control character, each sequence
// written out (\x1b).
func TestDecodeCleansControlCharacters(t *testing.T) {
	const evil = "\x1b[31m\a\u009b2J\x1b]0;pwned\a\x1b]8;;http://x\x1b\\\r\n\x00\x7f"
	golden, err := os.ReadFile("testdata/full.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(golden, &doc); err != nil {
		t.Fatal(err)
	}
	strs := 0
	var taint func(v any, keys bool) any
	taint = func(v any, keys bool) any {
		switch v := v.(type) {
		case string:
			strs++
			return v + evil
		case []any:
			for i := range v {
				v[i] = taint(v[i], false)
			}
		case map[string]any:
			out := map[string]any{}
			for k, e := range v {
				if keys {
					k += evil
				}
				out[k] = taint(e, k == "extra" || k == "served")
			}
			return out
		}
		return v
	}
	line, err := json.Marshal(taint(doc, false))
	if err != nil {
		t.Fatal(err)
	}
	if strs < 10 {
		t.Fatalf("the golden line has %d strings", strs)
	}
	var d Decoder
	s, err := d.Snapshot(line)
	if err != nil {
		t.Fatal(err)
	}
	seen, clean := 0, 0
	var walk func(v reflect.Value, at string)
	walk = func(v reflect.Value, at string) {
		switch v.Kind() {
		case reflect.String:
			seen++
			if i := strings.IndexFunc(v.String(), isControl); i >= 0 {
				t.Errorf("%s = %q: a control character", at, v.String())
			}
			if strings.Contains(v.String(), `\x1b[31m\x07\x9b2J\x1b]0;pwned\x07`) {
				clean++
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i), at+"."+v.Type().Field(i).Name)
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", at, i))
			}
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), at)
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				walk(it.Key(), at+" key")
				walk(it.Value(), fmt.Sprintf("%s[%v]", at, it.Key()))
			}
		}
	}
	walk(reflect.ValueOf(s), "Snapshot")
	if clean < 10 {
		t.Errorf("%d of %d strings decoded hold the sequences written out, want at least 10", clean, seen)
	}
	if got := Clean("ok\x1b[0m\xff\u009bé"); got != `ok\x1b[0m\xff\x9bé` {
		t.Errorf("Clean: %q", got)
	}
	if s.Scenario == "" || !strings.Contains(s.Look, `\x1b`) {
		t.Errorf("scenario %q, look %q: want both, the look's ESC written out", s.Scenario, s.Look)
	}
}

// A loop_busy the agent could not know (null: a program's own loop) reads
// as unknown, not as an idle 0, and is no figure out of range.
func TestDecodeLoopBusyNullIsUnknown(t *testing.T) {
	var d Decoder
	s, err := d.Snapshot([]byte(`{"schema":` + strconv.Itoa(SchemaVersion) + `,"loop_busy":null,"loop_queued":0}`))
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(s.LoopBusy)) || s.OutOfRange != 0 {
		t.Errorf("loop_busy null: %v, %d out of range; want NaN, 0", s.LoopBusy, s.OutOfRange)
	}
	if s, _ = d.Snapshot([]byte(`{"loop_busy":0.25}`)); s.LoopBusy != 0.25 {
		t.Errorf("loop_busy 0.25 read %v", s.LoopBusy)
	}
	if s, _ = d.Snapshot([]byte(`{"loop_busy":7}`)); !math.IsNaN(float64(s.LoopBusy)) || s.OutOfRange != 1 {
		t.Errorf("loop_busy 7: %v, %d out of range; want NaN, 1", s.LoopBusy, s.OutOfRange)
	}
}
