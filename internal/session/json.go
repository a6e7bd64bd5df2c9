package session

import (
	"math"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/millis"
)

// SchemaVersion is the version of the Snapshot's JSON in the schema field. It
// changes when a field changes meaning or goes; adding one does not.
const SchemaVersion = 1

// SizeJSON is a SizeRow as it leaves offtop (the field sizes): times in
// seconds and ms, rounded as every other figure; null where a figure has
// no data. The exit summary and the sizes panel print these very numbers.
type SizeJSON struct {
	Scenario   string  `json:"scenario"`
	Workers    int     `json:"workers"`
	GOMAXPROCS int     `json:"gomaxprocs"`
	Priority   bool    `json:"priority"`
	HeldS      float64 `json:"held_s"`
	// IdleS is the row's Idle: an attached program's pool had no task and
	// its routes answered no request.
	IdleS float64 `json:"idle_s"`
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
	// Served is SizeRow.Served: per endpoint, a latency object.
	Served map[string]hist.Summary `json:"served"`
	// OthersCPUs is the CPUs' worth of time the rest of the machine used
	// while the size was held; MachineBusy says it was more than
	// sysinfo.BusyShare of the CPUs (the row is not picked while a clean
	// one exists).
	OthersCPUs  *float64 `json:"others_cpus"`
	MachineBusy bool     `json:"machine_busy"`
}

// JSON converts r for the headless stream.
func (r SizeRow) JSON() SizeJSON {
	j := SizeJSON{
		Scenario: r.Scenario, Workers: r.Workers, GOMAXPROCS: r.GOMAXPROCS, Priority: r.Priority,
		HeldS: finite3(r.Held.Seconds()), IdleS: finite3(r.Idle.Seconds()),
		ProbeCount: r.Probe.Count, Headline: r.HeadlineName, HeadlineCount: r.Headline.Count,
		ThroughputPerS: finite3(r.ThroughputPerS()),
		Current:        r.Current, Unsettled: r.Unsettled, Served: r.Served,
	}
	if j.Served == nil {
		j.Served = map[string]hist.Summary{}
	}
	if r.Probe.Count > 0 {
		j.ProbeP99MS, j.ProbeMaxMS = millis.Of(r.Probe.P99), millis.Of(r.Probe.Max)
	}
	if r.Headline.Count > 0 {
		j.HeadlineP99MS = millis.Of(r.Headline.P99)
	}
	if v := r.CPUPerWall(); !math.IsNaN(v) && !math.IsInf(v, 0) {
		v = round3(v)
		j.CPUPerWall = &v
	}
	if r.AnswerKnown {
		v := r.AnswerOK
		j.AnswerOK = &v
	}
	if v := r.OthersCPUs(); !math.IsNaN(v) {
		v = round3(v)
		j.OthersCPUs = &v
	}
	j.MachineBusy = r.MachineBusy
	return j
}

// RequiredJSONFields are the top-level fields every headless line carries
// (docs/json-lines.md); tests of the binary check every line against them, and a test
// checks each is a JSON name of a Snapshot field.
var RequiredJSONFields = []string{
	"t_s", "scenario", "workers", "gomaxprocs", "num_cpu", "cpu_limit", "suggested_workers",
	"queue_depth", "submitted", "completed", "failed", "running", "throughput_per_s",
	"worker_busy", "worker_oncpu", "cpu_percent", "cpu_seconds", "rss_bytes", "goroutines",
	"probe", "probe_raw", "probe_total", "sched", "task", "extra", "sizes",
}
