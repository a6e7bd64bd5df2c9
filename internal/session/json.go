package session

import (
	"encoding/json"
	"math"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/sizing"
)

// LatencyJSON is a hist.Summary as it leaves offtop: milliseconds, with
// percentiles null while Count is 0 (an empty histogram has no percentiles).
type LatencyJSON struct {
	P50  *float64 `json:"p50_ms"`
	P90  *float64 `json:"p90_ms"`
	P99  *float64 `json:"p99_ms"`
	P999 *float64 `json:"p999_ms"`
	Max  *float64 `json:"max_ms"`
	// Count is the number of samples (corrected ones included).
	Count int64 `json:"count"`
	// Clamped counts values above the histogram's 100 s range.
	Clamped int64 `json:"clamped,omitempty"`
}

// Latency converts a summary for JSON.
func Latency(s hist.Summary) LatencyJSON {
	j := LatencyJSON{Count: s.Count, Clamped: s.Clamped}
	if s.Count == 0 {
		return j
	}
	j.P50, j.P90, j.P99, j.P999, j.Max = ms(s.P50), ms(s.P90), ms(s.P99), ms(s.P999), ms(s.Max)
	return j
}

func ms(d time.Duration) *float64 {
	v := math.Round(float64(d)/1e3) / 1e3 // ms, to the microsecond
	return &v
}

// SnapshotJSON is one line of --headless output. Field names are fixed by
// DESIGN.md ("Snapshot fields in JSON Lines"); more may be added.
type SnapshotJSON struct {
	// Schema is the stream's version (SchemaVersion); a reader refuses
	// another.
	Schema           int            `json:"schema"`
	TS               float64        `json:"t_s"`
	Scenario         string         `json:"scenario"`
	Load             string         `json:"load"`
	Paused           bool           `json:"paused"`
	PerTask          bool           `json:"per_task"`
	Workers          int            `json:"workers"`
	GOMAXPROCS       int            `json:"gomaxprocs"`
	NumCPU           int            `json:"num_cpu"`
	CPULimit         *float64       `json:"cpu_limit"`
	AffinityCPUs     *int           `json:"affinity_cpus"`
	GOMAXPROCSSource string         `json:"gomaxprocs_source"`
	SuggestedWorkers int            `json:"suggested_workers"`
	SuggestedRule    string         `json:"suggested_rule"`
	Oversubscribed   bool           `json:"oversubscribed"`
	QueueDepth       int64          `json:"queue_depth"`
	Submitted        int64          `json:"submitted"`
	Completed        int64          `json:"completed"`
	Failed           int64          `json:"failed"`
	Running          int64          `json:"running"`
	Rejected         int64          `json:"rejected"`
	Replaced         int64          `json:"replaced"`
	TimedOut         int64          `json:"timed_out"`
	Abandoned        int64          `json:"abandoned"`
	Stuck            int64          `json:"stuck"`
	ThroughputPerS   float64        `json:"throughput_per_s"`
	WorkerBusy       []float64      `json:"worker_busy"`
	WorkerOnCPU      []float64      `json:"worker_oncpu"`
	LoopBusy         float64        `json:"loop_busy"`
	LoopQueued       int            `json:"loop_queued"`
	CPUPercent       *float64       `json:"cpu_percent"`
	CPUSeconds       float64        `json:"cpu_seconds"`
	RSSBytes         *int64         `json:"rss_bytes"`
	Goroutines       int            `json:"goroutines"`
	Probe            LatencyJSON    `json:"probe"`
	ProbeRaw         LatencyJSON    `json:"probe_raw"`
	ProbeTotal       LatencyJSON    `json:"probe_total"`
	ProbeMissed      int64          `json:"probe_missed"`
	ProbeStalledMS   float64        `json:"probe_stalled_ms"`
	Sched            LatencyJSON    `json:"sched"`
	SchedRuntime     LatencyJSON    `json:"sched_runtime"`
	Task             LatencyJSON    `json:"task"`
	TaskWait         LatencyJSON    `json:"task_wait"`
	SamplesMissed    int64          `json:"samples_missed"`
	ResolutionMS     float64        `json:"resolution_ms"`
	WindowS          float64        `json:"window_s"`
	Extra            map[string]any `json:"extra"`
	Sizes            []SizeJSON     `json:"sizes"`
	Search           *SearchJSON    `json:"search"`
	// Look, WorkerSlots, WorkerRetiring and ProbeP99SecMS (the Loop
	// probe's corrected p99 over the last second, the charts' point) are
	// what a remote dashboard needs beside the fields above.
	Look           string   `json:"look"`
	WorkerSlots    []int    `json:"worker_slots"`
	WorkerRetiring []bool   `json:"worker_retiring"`
	ProbeP99SecMS  *float64 `json:"probe_p99_1s_ms"`
}

// SearchJSON is the size search (Search) as it leaves offtop; the field
// search is null until a search has run.
type SearchJSON struct {
	Running  bool        `json:"running"`
	Scenario string      `json:"scenario"`
	Sizes    []int       `json:"sizes"`
	Step     int         `json:"step"`
	HoldS    float64     `json:"hold_s"`
	LeftS    float64     `json:"left_s"`
	Canceled bool        `json:"canceled"`
	Err      string      `json:"error,omitempty"`
	Fit      *sizing.Fit `json:"fit"`
}

// SchemaVersion is the version of SnapshotJSON in the schema field. It
// changes when a field changes meaning or goes; adding one does not.
const SchemaVersion = 1

// SizeJSON is a SizeRow as it leaves offtop (the field sizes): times in
// seconds and ms, rounded as every other figure; null where a figure has
// no data. The exit summary and the sizes panel print these very numbers.
type SizeJSON struct {
	Scenario   string  `json:"scenario"`
	Workers    int     `json:"workers"`
	GOMAXPROCS int     `json:"gomaxprocs"`
	HeldS      float64 `json:"held_s"`
	// ProbeP99MS and ProbeMaxMS are the Loop probe, corrected, at this size.
	ProbeP99MS *float64 `json:"probe_p99_ms"`
	ProbeMaxMS *float64 `json:"probe_max_ms"`
	ProbeCount int64    `json:"probe_count"`
	// Headline names the scenario's headline; HeadlineP99MS is its p99 at
	// this size over HeadlineCount observations.
	Headline       string   `json:"headline"`
	HeadlineP99MS  *float64 `json:"headline_p99_ms"`
	HeadlineCount  int64    `json:"headline_count"`
	ThroughputPerS float64  `json:"throughput_per_s"`
	CPUPerWall     *float64 `json:"cpu_per_wall"`
	AnswerOK       *bool    `json:"answer_ok"`
	Current        bool     `json:"current"`
	Unsettled      int64    `json:"unsettled"`
}

// JSON converts r for the headless stream.
func (r SizeRow) JSON() SizeJSON {
	j := SizeJSON{
		Scenario: r.Scenario, Workers: r.Workers, GOMAXPROCS: r.GOMAXPROCS,
		HeldS:      round3(r.Held.Seconds()),
		ProbeCount: r.Probe.Count, Headline: r.HeadlineName, HeadlineCount: r.Headline.Count,
		ThroughputPerS: round3(r.ThroughputPerS()),
		Current:        r.Current, Unsettled: r.Unsettled,
	}
	if r.Probe.Count > 0 {
		j.ProbeP99MS, j.ProbeMaxMS = ms(r.Probe.P99), ms(r.Probe.Max)
	}
	if r.Headline.Count > 0 {
		j.HeadlineP99MS = ms(r.Headline.P99)
	}
	if v := r.CPUPerWall(); !math.IsNaN(v) {
		v = round3(v)
		j.CPUPerWall = &v
	}
	if r.AnswerKnown {
		v := r.AnswerOK
		j.AnswerOK = &v
	}
	return j
}

// JSON converts s to its headless form.
func (s Snapshot) JSON() SnapshotJSON {
	j := SnapshotJSON{
		Schema:           SchemaVersion,
		Look:             s.Look,
		WorkerSlots:      s.WorkerSlots,
		WorkerRetiring:   s.WorkerRetiring,
		TS:               math.Round(s.Elapsed.Seconds()*1000) / 1000,
		Scenario:         s.Scenario,
		Load:             s.Load,
		Paused:           s.Paused,
		PerTask:          s.PerTask,
		Workers:          s.Workers,
		GOMAXPROCS:       s.GOMAXPROCS,
		NumCPU:           s.NumCPU,
		GOMAXPROCSSource: s.GOMAXPROCSSource,
		SuggestedWorkers: s.SuggestedWorkers,
		SuggestedRule:    s.SuggestedRule,
		Oversubscribed:   s.Oversubscribed,
		QueueDepth:       s.QueueDepth,
		Submitted:        s.Submitted,
		Completed:        s.Completed,
		Failed:           s.Failed,
		Running:          s.Running,
		Rejected:         s.Rejected,
		Replaced:         s.Replaced,
		TimedOut:         s.TimedOut,
		Abandoned:        s.Abandoned,
		Stuck:            s.Stuck,
		ThroughputPerS:   round3(s.ThroughputPerSec),
		WorkerBusy:       roundAll(s.WorkerBusy),
		WorkerOnCPU:      roundAll(s.WorkerOnCPU),
		LoopBusy:         round3(s.LoopBusy),
		LoopQueued:       s.LoopQueued,
		CPUSeconds:       round3(s.CPUSeconds),
		Goroutines:       s.Goroutines,
		Probe:            Latency(s.Probe),
		ProbeRaw:         Latency(s.ProbeRaw),
		ProbeTotal:       Latency(s.ProbeTotal),
		ProbeMissed:      s.ProbeMissed,
		ProbeStalledMS:   float64(s.ProbeStalled) / 1e6,
		Sched:            Latency(s.Sched),
		SchedRuntime:     Latency(s.SchedRuntime),
		Task:             Latency(s.Task),
		TaskWait:         Latency(s.TaskWait),
		SamplesMissed:    s.SamplesMissed,
		ResolutionMS:     float64(s.Resolution) / 1e6,
		WindowS:          s.Window.Seconds(),
		Extra:            map[string]any{},
		Sizes:            make([]SizeJSON, 0, len(s.Sizes)),
	}
	for _, r := range s.Sizes {
		j.Sizes = append(j.Sizes, r.JSON())
	}
	if q := s.Search; q.Sizes != nil {
		j.Search = &SearchJSON{Running: q.Running, Scenario: q.Scenario, Sizes: q.Sizes, Step: q.Step,
			HoldS: round3(q.Hold.Seconds()), LeftS: round3(q.Left.Seconds()), Canceled: q.Canceled, Err: q.Err, Fit: q.Fit}
	}
	if j.WorkerBusy == nil {
		j.WorkerBusy = []float64{}
	}
	if n := len(s.ProbeP99History); n > 0 && !math.IsNaN(s.ProbeP99History[n-1]) {
		v := round3(s.ProbeP99History[n-1])
		j.ProbeP99SecMS = &v
	}
	if s.AffinityCPUs > 0 {
		v := s.AffinityCPUs
		j.AffinityCPUs = &v
	}
	if s.CPULimit > 0 {
		v := s.CPULimit
		j.CPULimit = &v
	}
	if s.CPUPercent >= 0 {
		v := round3(s.CPUPercent)
		j.CPUPercent = &v
	}
	if s.RSSBytes >= 0 {
		v := s.RSSBytes
		j.RSSBytes = &v
	}
	for _, r := range s.Readouts {
		switch {
		case !r.Known:
			j.Extra[r.Key] = nil
		case r.Bool:
			j.Extra[r.Key] = r.Value != 0
		case r.Str:
			j.Extra[r.Key] = r.Text
		default:
			j.Extra[r.Key] = round3(r.Value)
		}
	}
	return j
}

// MarshalJSON encodes s in its headless form.
func (s Snapshot) MarshalJSON() ([]byte, error) { return json.Marshal(s.JSON()) }

func round3(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*1000) / 1000
}

func roundAll(v []float64) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = round3(x)
	}
	return out
}

// RequiredJSONFields are the top-level fields DESIGN.md fixes for headless
// output; tests of the binary check every line against them.
var RequiredJSONFields = []string{
	"t_s", "scenario", "workers", "gomaxprocs", "num_cpu", "cpu_limit", "suggested_workers",
	"queue_depth", "submitted", "completed", "failed", "running", "throughput_per_s",
	"worker_busy", "worker_oncpu", "cpu_percent", "cpu_seconds", "rss_bytes", "goroutines",
	"probe", "probe_raw", "probe_total", "sched", "task", "extra", "sizes",
}
