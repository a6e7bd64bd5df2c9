package session

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/millis"
	"github.com/offtop/offtop/internal/sysinfo"
	"github.com/offtop/offtop/internal/workload"
)

// Decoder turns the JSON Lines of a Snapshot stream (an agent's, or
// --headless output) back into Snapshots, for a dashboard in another
// process. A line carries one sample, so the charts' history is rebuilt
// here, one point per line, as the sampler builds it; a Decoder is for one
// stream, read in order, and not safe for concurrent use. Its zero value
// is ready.
//
// What JSON does not carry comes back as the nearest thing: a readout's
// label is its key and its unit the one its key names (workload.UnitOf);
// the usable CPUs are rebuilt from num_cpu, affinity_cpus and cpu_limit;
// the others reading is of the affinity mask's CPUs (num_cpu when
// unknown); a headline is the probe when the current size row names it (streamHeadline), else empty; a size row's Completed and CPUSeconds are its rates
// times its held time.
//
// Every string decoded (the scenario, the look, readouts' keys and
// strings, route names, every other) has its control characters, C0
// (U+0000..U+001F, U+007F) and C1 (U+0080..U+009F), written out as \xNN
// (Clean), so that nothing a peer sends reaches a terminal as an escape.
//
// A figure out of its range (clearOutOfRange) comes back unknown, as if the
// line had said null, and is counted in the Snapshot's OutOfRange.
type Decoder struct {
	hist       history
	outOfRange int64
}

// Reset empties the rebuilt history (after a reconnect, or an r).
func (d *Decoder) Reset() { d.hist.reset() }

// Snapshot decodes one line, adding its point to the history. Its
// Schema is what the line said; the caller refuses another version.
func (d *Decoder) Snapshot(line []byte) (Snapshot, error) {
	s := Snapshot{Process: Process{CPUPercent: -1, RSSBytes: -1}, Machine: Machine{OthersCPUs: -1}, // unknown unless the line says
		Loop: Loop{LoopBusy: Share(math.NaN())}}
	w := struct {
		*Snapshot
		Actions []string `json:"actions"`
	}{Snapshot: &s}
	if err := json.Unmarshal(line, &w); err != nil {
		return Snapshot{}, err
	}
	s.Actions = w.Actions
	cleanStrings(reflect.ValueOf(&s).Elem())
	d.outOfRange += int64(s.clearOutOfRange())
	s.OutOfRange = d.outOfRange
	s.UsableCPUs = sysinfo.CPUs{NumCPU: s.NumCPU, Affinity: int(s.AffinityCPUs), Quota: float64(s.CPULimit)}.Usable()
	s.OthersOf = s.NumCPU // the reading's CPUs are the affinity mask's
	if s.AffinityCPUs > 0 {
		s.OthersOf = int(s.AffinityCPUs)
	}
	s.Headline = headlineOf(streamHeadline(s), s.Probe, hist.Summary{}) // the window of another headline is not in the stream
	d.hist.add(&s, s.ProbeP99History.Last(), float64(s.QueueDepth), float64(s.Workers))
	return s, nil
}

// streamHeadline is the headline of a decoded s as its current size row
// names it (workload.HeadlineNamed); the Loop probe with no current row.
func streamHeadline(s Snapshot) workload.HeadlineSpec {
	for _, r := range s.Sizes {
		if r.Current && r.Scenario == s.Scenario {
			return workload.HeadlineNamed(r.HeadlineName)
		}
	}
	return workload.ProbeHeadline
}

// Row is the SizeRow j was made from (Completed and CPUSeconds from its
// rates and held time).
func (j SizeJSON) Row() SizeRow {
	r := SizeRow{
		Scenario: j.Scenario, Workers: j.Workers, GOMAXPROCS: j.GOMAXPROCS,
		Held:         time.Duration(j.HeldS * float64(time.Second)),
		Idle:         time.Duration(j.IdleS * float64(time.Second)),
		HeadlineName: j.Headline, Current: j.Current, Unsettled: j.Unsettled,
		Probe:    hist.Summary{P99: millis.Duration(j.ProbeP99MS), Max: millis.Duration(j.ProbeMaxMS), Count: j.ProbeCount},
		Headline: hist.Summary{P99: millis.Duration(j.HeadlineP99MS), Count: j.HeadlineCount},
		Served:   j.Served,
	}
	r.Completed = int64(math.Round(j.ThroughputPerS * j.HeldS))
	if j.CPUPerWall != nil {
		r.CPUKnown, r.CPUSeconds = true, *j.CPUPerWall*j.HeldS
	}
	if j.AnswerOK != nil {
		r.AnswerKnown, r.AnswerOK = true, *j.AnswerOK
	}
	if j.OthersCPUs != nil {
		r.OthersKnown, r.OthersSeconds, r.OthersWall = true, *j.OthersCPUs*j.HeldS, r.Held
	}
	r.MachineBusy = j.MachineBusy
	return r
}

// maxFigure bounds every float figure's magnitude: no figure offtop makes
// comes near it, and past it a float64 has no unit precision left.
const maxFigure = 1e15

// clearOutOfRange makes each figure of a decoded s that is out of its
// range unknown, and returns how many it changed. Out of range: a share
// (worker_busy, worker_oncpu, loop_busy) outside 0..1 (made NaN);
// throughput_per_s, cpu_seconds or probe_p99_1s_ms negative or over
// maxFigure (NaN); cpu_percent negative or over 150 per CPU of num_cpu
// (-1); cpu_limit negative or over maxFigure (0); a number in extra over
// maxFigure either way (Known false); t_s negative or over maxFigure (0);
// a negative count or size (workers, queue_depth, running, gomaxprocs,
// num_cpu, goroutines, loop_queued, submitted, completed, failed: 0).
func (s *Snapshot) clearOutOfRange() int {
	n := 0
	out := func(v, lo, hi float64) bool {
		if math.IsNaN(v) || v < lo || v > hi {
			n++
			return true
		}
		return false
	}
	for i, v := range s.WorkerBusy {
		if out(v, 0, 1) {
			s.WorkerBusy[i] = math.NaN()
		}
	}
	for i, v := range s.WorkerOnCPU {
		if out(v, 0, 1) {
			s.WorkerOnCPU[i] = math.NaN()
		}
	}
	if v := float64(s.LoopBusy); !math.IsNaN(v) && out(v, 0, 1) { // NaN: null, unknown as sent
		s.LoopBusy = Share(math.NaN())
	}
	if out(float64(s.ThroughputPerSec), 0, maxFigure) {
		s.ThroughputPerSec = Rate(math.NaN())
	}
	if out(float64(s.CPUSeconds), 0, maxFigure) {
		s.CPUSeconds = CPUTime(math.NaN())
	}
	if p := float64(s.CPUPercent); p != -1 && out(p, 0, 150*float64(max(s.NumCPU, 1))) {
		s.CPUPercent = -1
	}
	if q := float64(s.CPULimit); q != 0 && out(q, 0, maxFigure) {
		s.CPULimit = 0
	}
	if v := s.ProbeP99History.Last(); !math.IsNaN(v) && out(v, 0, maxFigure) {
		s.ProbeP99History = Series{math.NaN()}
	}
	for i, r := range s.Readouts {
		if r.Known && !r.Bool && !r.Str && out(math.Abs(r.Value), 0, maxFigure) {
			s.Readouts[i].Known, s.Readouts[i].Value = false, 0
		}
	}
	if out(time.Duration(s.Elapsed).Seconds(), 0, maxFigure) {
		s.Elapsed = 0
	}
	// Counts and sizes: none is negative (a size past the pool's bound is
	// the agent's to refuse, and shows as sent).
	for _, c := range []*int{&s.Workers, &s.GOMAXPROCS, &s.NumCPU, &s.Goroutines, &s.LoopQueued} {
		if *c < 0 {
			n++
			*c = 0
		}
	}
	for _, c := range []*int64{&s.QueueDepth, &s.Running, &s.Submitted, &s.Completed, &s.Failed} {
		if *c < 0 {
			n++
			*c = 0
		}
	}
	return n
}

// Clean is s with each control character (C0: U+0000..U+001F and U+007F;
// C1: U+0080..U+009F) and each byte that is not UTF-8 written out as
// \xNN, two lower-case hex digits; s itself when it has none.
func Clean(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if isControl(r) || r == utf8.RuneError && n == 1 {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case isControl(r):
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }

// cleanStrings applies Clean to every settable string in v: fields,
// elements, map keys and values, through pointers.
func cleanStrings(v reflect.Value) {
	if !hasString(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if c := Clean(v.String()); c != v.String() && v.CanSet() {
			v.SetString(c)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				cleanStrings(f)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			cleanStrings(v.Index(i))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			cleanStrings(v.Elem())
		}
	case reflect.Map:
		if v.IsNil() || !v.CanSet() {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			cleanStrings(k)
			cleanStrings(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}

// stringTypes caches hasString: reflect.Type to bool.
var stringTypes sync.Map

// hasString reports whether a value of t can hold a string Clean could
// change: a string, or a struct, slice, array, pointer or map with one.
func hasString(t reflect.Type) bool {
	if h, ok := stringTypes.Load(t); ok {
		return h.(bool)
	}
	stringTypes.Store(t, false) // ends a type that holds itself (none in a Snapshot)
	h := false
	switch t.Kind() {
	case reflect.String:
		h = true
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && hasString(f.Type) {
				h = true
			}
		}
	case reflect.Slice, reflect.Array, reflect.Pointer:
		h = hasString(t.Elem())
	case reflect.Map:
		h = hasString(t.Key()) || hasString(t.Elem())
	}
	stringTypes.Store(t, h)
	return h
}
