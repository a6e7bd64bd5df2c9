package session

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// TestUnitsEncodeAnyFloat: every unit type's MarshalJSON gives valid JSON
// for NaN, +Inf, -Inf and 1e308 (round3's v*1000 overflowed to +Inf, and
// json.Marshal refused it: headless attach exited on a peer's 1e308), a
// non-finite figure as null, and a whole Snapshot holding them encodes.
func TestUnitsEncodeAnyFloat(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e308, -1e308} {
		finite := !math.IsNaN(v) && !math.IsInf(v, 0)
		for name, m := range map[string]json.Marshaler{
			"Share":     Share(v),
			"Shares":    Shares{0.5, v},
			"OptShares": OptShares{v, 0.25},
			"Rate":      Rate(v),
			"CPUTime":   CPUTime(v),
			"Percent":   Percent(v),
			"CPUQuota":  CPUQuota(v),
			"Series":    Series{1, v},
			"Readouts":  Readouts{{Key: "x_ms", Value: v, Known: true}},
			"SizeRow":   SizeRow{Scenario: "count", Workers: 1, Held: time.Second, Completed: 1, CPUSeconds: v, CPUKnown: true},
		} {
			b, err := m.MarshalJSON()
			if err != nil || !json.Valid(b) {
				t.Errorf("%s(%v): %q, %v: not valid JSON", name, v, b, err)
				continue
			}
			if !finite && !bytes.Contains(b, null) && name != "SizeRow" && !(name == "Percent" && v < 0) && !(name == "CPUQuota" && v < 0) {
				t.Errorf("%s(%v) = %s: want null for it", name, v, b)
			}
		}
	}
	for _, d := range []time.Duration{math.MinInt64, math.MaxInt64} {
		for name, m := range map[string]json.Marshaler{"Seconds": Seconds(d), "Millis": Millis(d)} {
			if b, err := m.MarshalJSON(); err != nil || !json.Valid(b) {
				t.Errorf("%s(%d): %q, %v: not valid JSON", name, d, b, err)
			}
		}
	}
	s := Snapshot{Pool: Pool{WorkerBusy: Shares{1e308}, WorkerOnCPU: OptShares{math.NaN()}, ThroughputPerSec: Rate(math.Inf(1))},
		Loop: Loop{LoopBusy: Share(math.NaN())}, Process: Process{CPUPercent: Percent(math.Inf(1)), CPUSeconds: CPUTime(math.NaN())}}
	if b, err := json.Marshal(s); err != nil || !json.Valid(b) {
		t.Errorf("a Snapshot with NaN, Inf and 1e308: %v\n%s", err, b)
	}
	if got := Shares([]float64{0.1234, math.NaN()}); string(must(got.MarshalJSON())) != "[0.123,null]" {
		t.Errorf("Shares{0.1234, NaN} = %s, want [0.123,null]", must(got.MarshalJSON()))
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestDecodeOutOfRange: a line whose figures are out of their range
// decodes with each of them unknown and counted (OutOfRange, over the
// stream's lines), and encodes again as valid JSON with null there; the
// figures in range are kept.
func TestDecodeOutOfRange(t *testing.T) {
	good, err := json.Marshal(Snapshot{Run: Run{Scenario: "count"}, Machine: Machine{NumCPU: 2},
		Pool:    Pool{Workers: 2, WorkerBusy: Shares{0.5, 1}, WorkerOnCPU: OptShares{0.25, 0}, ThroughputPerSec: 10},
		Loop:    Loop{LoopBusy: 0.5},
		Process: Process{CPUPercent: 150, CPUSeconds: 3, RSSBytes: 1 << 20},
		Status:  Status{Readouts: Readouts{{Key: "x_ms", Value: 2, Known: true}}}})
	if err != nil {
		t.Fatal(err)
	}
	bad := string(good)
	for _, r := range [][2]string{
		{`"worker_busy":[0.5,1]`, `"worker_busy":[1e308,1]`},
		{`"worker_oncpu":[0.25,0]`, `"worker_oncpu":[0.25,-0.5]`},
		{`"loop_busy":0.5`, `"loop_busy":1.5`},
		{`"throughput_per_s":10`, `"throughput_per_s":-1e308`},
		{`"cpu_percent":150`, `"cpu_percent":1e300`},
		{`"cpu_seconds":3`, `"cpu_seconds":1e308`},
		{`"x_ms":2`, `"x_ms":-1e308`},
		{`"t_s":0`, `"t_s":1e308`},
		{`"workers":2`, `"workers":-3`},
		{`"gomaxprocs":0`, `"gomaxprocs":-2`},
	} {
		if !strings.Contains(bad, r[0]) {
			t.Fatalf("no %s in %s", r[0], good)
		}
		bad = strings.Replace(bad, r[0], r[1], 1)
	}
	var d Decoder
	s, err := d.Snapshot([]byte(bad))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if s.OutOfRange != 10 {
		t.Errorf("OutOfRange %d, want 10", s.OutOfRange)
	}
	if s.Elapsed != 0 || s.Workers != 0 || s.GOMAXPROCS != 0 {
		t.Errorf("decoded: t_s %v, workers %d, gomaxprocs %d; want 0 (unknown) for each", s.Elapsed, s.Workers, s.GOMAXPROCS)
	}
	if !math.IsNaN(s.WorkerBusy[0]) || s.WorkerBusy[1] != 1 || !math.IsNaN(s.WorkerOnCPU[1]) || s.WorkerOnCPU[0] != 0.25 ||
		!math.IsNaN(float64(s.LoopBusy)) || !math.IsNaN(float64(s.ThroughputPerSec)) || s.CPUPercent != -1 ||
		!math.IsNaN(float64(s.CPUSeconds)) || s.Readouts[0].Known || s.RSSBytes != 1<<20 {
		t.Errorf("decoded: busy %v oncpu %v loop %v tput %v cpu %v%% %vs readouts %+v rss %d",
			s.WorkerBusy, s.WorkerOnCPU, s.LoopBusy, s.ThroughputPerSec, s.CPUPercent, s.CPUSeconds, s.Readouts, s.RSSBytes)
	}
	out, err := json.Marshal(s)
	if err != nil || !json.Valid(out) {
		t.Fatalf("encode the decoded line: %v\n%s", err, out)
	}
	for _, w := range []string{`"worker_busy":[null,1]`, `"worker_oncpu":[0.25,null]`, `"loop_busy":null`, `"throughput_per_s":null`,
		`"cpu_percent":null`, `"cpu_seconds":null`, `"x_ms":null`} {
		if !strings.Contains(string(out), w) {
			t.Errorf("no %s in %s", w, out)
		}
	}
	if s, _ = d.Snapshot(good); s.OutOfRange != 10 {
		t.Errorf("after a line in range OutOfRange %d, want 10 still", s.OutOfRange)
	}
	if s, _ = d.Snapshot([]byte(bad)); s.OutOfRange != 20 {
		t.Errorf("after a second bad line OutOfRange %d, want 20", s.OutOfRange)
	}
}
