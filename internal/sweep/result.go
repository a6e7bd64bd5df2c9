package sweep

import (
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sizing"
)

// Row is one pool size's results. Pointers are nil where a figure does not
// apply or has no data (JSON null, "n/a" in the table).
type Row struct {
	// Name is the row's name when the sweep compares configurations
	// (SeedName's plain, cluster, worker_threads, both; pool, per-task).
	Name    string `json:"name,omitempty"`
	Loops   int    `json:"loops,omitempty"`
	PerTask bool   `json:"per_task,omitempty"`
	// Priority: the row ran on priority workers (Config.Priority).
	Priority bool `json:"priority,omitempty"`
	Workers  int  `json:"workers"`
	// ThroughputPerS is pool tasks completed per second over the run.
	ThroughputPerS float64 `json:"throughput_per_s"`
	// CPUSeconds is process CPU time over the measured run; CPUPerWall is
	// that over the run's wall time (1 = one core busy), nil when unknown.
	CPUSeconds float64  `json:"cpu_seconds"`
	CPUPerWall *float64 `json:"cpu_per_wall"`
	// Speedup is throughput over the 1-worker row's; Efficiency is
	// Speedup / workers. nil without a 1-worker row, or at 0 workers.
	Speedup    *float64 `json:"speedup"`
	Efficiency *float64 `json:"efficiency"`
	// ProbeP99MS is the Loop probe's corrected p99 over the run; TaskP99MS
	// the pool tasks' submit-to-end p99.
	ProbeP99MS *float64 `json:"probe_p99_ms"`
	TaskP99MS  *float64 `json:"task_p99_ms"`
	// RSSMB is resident memory at the end of the run in MiB (2^20 bytes;
	// the JSON name rss_mb is the schema's).
	RSSMB *float64 `json:"rss_mb"`
	// Extra holds the scenario's headline readouts at the end of the run
	// (scenarios.SweepKeys: /ping p99 for server, wall per batch for count
	// and per mode for breakeven), keyed as in the headless JSON.
	Extra map[string]*float64 `json:"extra"`
	// AnswerOK is the scenario's answer_ok at the end (nil: no answer yet).
	AnswerOK *bool `json:"answer_ok"`
	// Size is the session's own row for this size over the measured run
	// (session.SizeRow): the figures above that it has come from it, and
	// the table prints it through internal/report, as the live panel and
	// the exit summary do.
	Size session.SizeJSON `json:"size"`
	// Balanced reports that submitted = completed + failed + timed out +
	// running + queued held at every sample of the run.
	Balanced bool `json:"balanced"`
	// ArrivalPerS is pool tasks submitted per second over the run;
	// ServiceMS the mean time a task held a worker: the mean number of
	// busy workers over the throughput (Little's law read backwards).
	ArrivalPerS float64  `json:"arrival_per_s"`
	ServiceMS   *float64 `json:"service_ms"`
	// Repeats is how many runs the row combines; every figure above is
	// their median, Spread each figure's median, min and max (keyed as in
	// this JSON, extra figures as extra.KEY), Flags the figures whose
	// spread (max - min) / median exceeds 10%.
	Repeats int              `json:"repeats"`
	Spread  map[string]Range `json:"spread"`
	Flags   []string         `json:"flags"`
	// lo and hi are the rows of minima and maxima the table prints (nil
	// for a single run).
	lo, hi *Row
}

// Result is a whole sweep.
type Result struct {
	Scenario   string   `json:"scenario"`
	Columns    []string `json:"columns"` // the keys of every row's Extra, in table order
	GOMAXPROCS int      `json:"gomaxprocs"`
	NumCPU     int      `json:"num_cpu"`
	CPULimit   *float64 `json:"cpu_limit"`
	DurationS  float64  `json:"duration_s"`
	Repeat     int      `json:"repeat"`
	Load       int      `json:"load"`
	Rows       []Row    `json:"rows"`
	// Fit is the USL over every run and the size picked (--fit), null
	// without --fit.
	Fit *sizing.Fit `json:"fit"`
	// Machine is the machine check (Config.CheckMachine), null without.
	Machine *Machine `json:"machine"`
	// Attach is the attached program swept (Config.Attach); null for a
	// scenario's sweep.
	Attach *AttachJSON `json:"attach"`
	// HdrLogMissing is the --hdr-log files a write failed for, each
	// removed and not written again, with the first error; nil when every
	// log was written (or none asked for).
	HdrLogMissing []MissingLog `json:"hdr_log_missing"`
	// Interrupted: ctx ended the sweep before its last run; Rows are the
	// sizes with a finished run, each of the runs it finished.
	Interrupted bool          `json:"interrupted"`
	Took        time.Duration `json:"-"`
	// runs are every run of each row, in row order.
	runs [][]Row
	// logs are the HDR logs' content so far, by path.
	logs map[string][]byte
}

// MissingLog is an HDR log a sweep could not write.
type MissingLog struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}
