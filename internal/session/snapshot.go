package session

import (
	"time"

	"github.com/offtop/offtop/internal/hist"
)

// Snapshot is everything offtop shows at one sample: an immutable value.
// Slices in it are fresh copies; nobody writes to them after Snapshot
// returns, so readers on any goroutine may keep it.
//
// It is grouped by concern into value types embedded here, so a figure
// reads as s.Workers or s.Pool.Workers alike; its JSON (one line of
// --headless output, docs/json-lines.md) is what encoding/json writes over
// these types, flat, with the names docs/json-lines.md lists, written by
// AppendJSON without reflection. Units are in the field
// types (Seconds, Millis, Share, Bytes, ...); a field tagged "-" is not in
// the stream.
type Snapshot struct {
	// Schema is the stream's version: SchemaVersion when encoded; what
	// the line said when decoded.
	Schema Schema `json:"schema"`
	// Elapsed is the wall time since the session started.
	Elapsed Seconds `json:"t_s"`
	Run
	Machine
	Status
	Pool
	Loop
	Process
	Probes
	// Sizes is the per-size accounting of every scenario run so far
	// (SizeRow), scenarios in order of first use, sizes ascending.
	Sizes SizeRows `json:"sizes"`
	// Search is the size search's state (the a key; the zero value, null
	// in JSON, when none has run).
	Search Search `json:"search"`
	// Endpoints is an attached program's HTTP routes (Program.Endpoints),
	// in order of route; nil (null in JSON) when it records none.
	Endpoints []Endpoint `json:"endpoints"`
	// LoadClient is the load offtop drives against an attached program
	// (attach --load), as its client measures it; nil (null) without one.
	LoadClient *LoadClient `json:"load_client"`
	// Actions are the Action kinds (ActionKind.String) an attached agent
	// takes now, as its line's "actions" lists them (a Node.js program's
	// agent's lines only; Decoder reads it); nil: ProgramActions.
	Actions []string `json:"-"`
	Sampling
	History
	// Headline is the scenario's headline latency (workload.HeadlineSpec)
	// over the window, every size together: the figure to watch, now.
	Headline hist.Summary `json:"-"`
	Link     `json:"-"`
}

// Run is the session's control state: what runs and how (Session.overlay).
type Run struct {
	Scenario string `json:"scenario"`
	// Paused: the scenario's load is paused (space); in a Program, its
	// pool had no task and its routes answered no request over the last
	// sample (the size rows not counting).
	Paused bool `json:"paused"`
	// PerTask: every task gets a goroutine of its own, no queue and no
	// bound, instead of a pool worker (pool.SetPerTask; the u key).
	PerTask bool `json:"per_task"`
	// Priority: the pool's workers run at the lowest thread priority
	// with GOMAXPROCS raised by the size (pool.SetPriority; the y key).
	Priority bool `json:"priority"`
	// Look is the scenario's one-line "what to look at".
	Look string `json:"look"`
}

// Machine is the CPUs offtop runs on and the pool size it suggests for them.
type Machine struct {
	GOMAXPROCS int `json:"gomaxprocs"`
	NumCPU     int `json:"num_cpu"`
	// CPULimit is the CPUs allowed by a cgroup quota; 0 when none or
	// unknown.
	CPULimit CPUQuota `json:"cpu_limit"`
	// AffinityCPUs is the CPUs in the affinity mask (0: unknown).
	AffinityCPUs CPUCount `json:"affinity_cpus"`
	// GOMAXPROCSSource says who set GOMAXPROCS: "runtime" (Go's default,
	// still updated by the runtime), "env" (the GOMAXPROCS variable),
	// "offtop" (g, G or --gomaxprocs) or "node" (a Node.js program's agent:
	// GOMAXPROCS is then os.availableParallelism() and Goroutines its JS
	// threads); RuntimeGOMAXPROCS is what the runtime would pick
	// (sysinfo.CPUs.RuntimeDefaultGOMAXPROCS).
	GOMAXPROCSSource  string `json:"gomaxprocs_source"`
	RuntimeGOMAXPROCS int    `json:"-"`
	// SuggestedWorkers is the pool size offtop suggests, SuggestedRule the
	// rule that gave it ("suggest 1 = floor(1.5 CPU quota)").
	SuggestedWorkers int    `json:"suggested_workers"`
	SuggestedRule    string `json:"suggested_rule"`
	// Oversubscribed: more workers than usable CPUs (or than GOMAXPROCS,
	// when that is lower).
	Oversubscribed bool `json:"oversubscribed"`
	// UsableCPUs is min(affinity, quota) unrounded; CPUWarning says in one
	// line why a limit is unknown ("" when all was read).
	UsableCPUs float64 `json:"-"`
	CPUWarning string  `json:"-"`
	// OthersCPUs is the CPUs' worth of time the rest of the machine used
	// over about the last second (sysinfo.MachineSample; -1, null in JSON,
	// when unknown), of OthersOf CPUs (the reading's: the affinity mask);
	// MachineBusy says it is more than sysinfo.BusyShare of them.
	OthersCPUs  OptCPUs `json:"others_cpus"`
	OthersOf    int     `json:"-"`
	MachineBusy bool    `json:"machine_busy"`
}

// Status is what the scenario reports at the sample (workload.Status).
type Status struct {
	// Load is the scenario's load in its own terms ([ and ] change it).
	Load     string   `json:"load"`
	Readouts Readouts `json:"extra"`
}

// Pool is the worker pool's figures. Counts are since the session started:
// Submitted = Completed + Failed + TimedOut + Canceled + Running +
// QueueDepth (without TimedOut and Canceled while no task has a deadline
// or a context). Failed counts tasks that
// panicked, returned an error or were dropped by Close; TimedOut tasks
// that ran past their deadline; Canceled tasks whose context ended while
// they were queued (an attached program's pool.SubmitContext).
type Pool struct {
	// Workers is the pool's size the per-worker figures are of; 0 means
	// inline on the Loop.
	Workers    int   `json:"workers"`
	QueueDepth int64 `json:"queue_depth"` // = Queued
	Submitted  int64 `json:"submitted"`
	Completed  int64 `json:"completed"`
	Failed     int64 `json:"failed"`
	Running    int64 `json:"running"`
	Rejected   int64 `json:"rejected"`
	Replaced   int64 `json:"replaced"`
	TimedOut   int64 `json:"timed_out"`
	Canceled   int64 `json:"canceled"`
	// Abandoned is the goroutines abandoned now, still running a timed-out
	// task; Stuck the workers holding their slot with one because
	// Abandoned was at the pool's cap, and the tasks past their deadline
	// holding the Loop (at size 0).
	Abandoned int64 `json:"abandoned"`
	Stuck     int64 `json:"stuck"`
	// ThroughputPerSec is completed tasks per second over the window.
	ThroughputPerSec Rate `json:"throughput_per_s"`
	// Per worker, in the same order: its slot (its name wN), its busy
	// share of the last interval, its on-CPU share (nil when the OS gives
	// no thread clock), and whether a shrink chose it.
	WorkerSlots    []int     `json:"worker_slots"`
	WorkerBusy     Shares    `json:"worker_busy"`
	WorkerOnCPU    OptShares `json:"worker_oncpu"`
	WorkerRetiring []bool    `json:"worker_retiring"`
	// Task is queue wait + run (submit to end) of pool tasks over the
	// window; TaskWait is the queue wait alone, TaskRun the run alone
	// (start to end).
	Task     hist.Summary `json:"task"`
	TaskWait hist.Summary `json:"task_wait"`
	TaskRun  hist.Summary `json:"task_run"`
	// ScenarioStart is the counts above when the scenario now running
	// came on screen (a tab to it); zero for the first scenario and in a
	// decoded Snapshot (the JSON carries the counts since the session
	// started only). The screen shows the counts since (SinceScenario).
	ScenarioStart PoolCounts `json:"-"`
}

// PoolCounts are the pool's cumulative task counts at one moment.
type PoolCounts struct {
	Submitted, Completed, Failed, TimedOut, Rejected int64
}

// SinceScenario is the pool's counts since the scenario now running came
// on screen, each at least 0. Their sum does not balance exactly as the
// cumulative counts do (Balanced): tasks queued or running at the switch
// finish under the next scenario.
func (p Pool) SinceScenario() PoolCounts {
	b := p.ScenarioStart
	return PoolCounts{
		Submitted: max(p.Submitted-b.Submitted, 0), Completed: max(p.Completed-b.Completed, 0),
		Failed: max(p.Failed-b.Failed, 0), TimedOut: max(p.TimedOut-b.TimedOut, 0),
		Rejected: max(p.Rejected-b.Rejected, 0),
	}
}

// Loop is the single-goroutine Loop's figures.
type Loop struct {
	// LoopBusy is the share of the last interval the Loop spent in callbacks.
	LoopBusy Share `json:"loop_busy"`
	// LoopQueued is the callbacks waiting on the Loop.
	LoopQueued int `json:"loop_queued"`
}

// Process is the whole process's figures.
type Process struct {
	// CPUPercent is CPU time over wall time in the last interval, 100 =
	// one core; -1 when unknown.
	CPUPercent Percent `json:"cpu_percent"`
	// CPUSeconds is CPU time since the process started.
	CPUSeconds CPUTime `json:"cpu_seconds"`
	// RSSBytes is resident memory; -1 when unknown.
	RSSBytes   Bytes `json:"rss_bytes"`
	Goroutines int   `json:"goroutines"`
}

// Probes is the latency probes: the Loop-delay probe (lateness of a
// callback due every Resolution on the Loop) and the scheduler probe.
type Probes struct {
	// Probe is coordinated-omission corrected over the window, ProbeRaw
	// the same raw, ProbeTotal corrected since the last reset.
	Probe       hist.Summary `json:"probe"`
	ProbeRaw    hist.Summary `json:"probe_raw"`
	ProbeTotal  hist.Summary `json:"probe_total"`
	ProbeMissed int64        `json:"probe_missed"`
	// ProbeStalled is how long the Loop has been blocked right now, past
	// one resolution (the probe's sample in flight has not run); 0 when not.
	ProbeStalled Millis `json:"probe_stalled_ms"`
	// Sched is the scheduler probe (the same on a free goroutine),
	// corrected, over the window; SchedRuntime is runtime/metrics
	// /sched/latencies over the last interval.
	Sched        hist.Summary `json:"sched"`
	SchedRuntime hist.Summary `json:"sched_runtime"`
}

// Sampling is how the session samples.
type Sampling struct {
	// SamplesMissed counts sample times skipped since the start because a
	// sample ran late (the sampler starved of CPU, or the process stopped).
	SamplesMissed int64 `json:"samples_missed"`
	// Interval is the time between samples (--interval): the charts' time
	// axis, and the span of sched_runtime.
	Interval   Millis  `json:"interval_ms"`
	Resolution Millis  `json:"resolution_ms"`
	Window     Seconds `json:"window_s"`
	// Final marks the last sample, taken as the session closes: its
	// interval figures (cpu_percent, loop_busy, worker_busy,
	// worker_oncpu) are over the whole run, its readouts the scenario's
	// at its stop.
	Final bool `json:"final"`
}

// History is the charts' series, oldest first, one point per sample, at
// most HistoryLen, emptied by r and by a switch of scenario: the Loop
// probe's corrected p99 in ms over the last second (NaN while it has no
// sample; its newest point is probe_p99_1s_ms in JSON), pool queue depth,
// and the pool size in force (0 = inline).
type History struct {
	ProbeP99History   Series    `json:"probe_p99_1s_ms"`
	QueueDepthHistory []float64 `json:"-"`
	WorkersHistory    []float64 `json:"-"`
}

// Link is where a remote Source reads from; none of it is in the stream.
type Link struct {
	// Remote is the agent address a remote Source reads ("" in process).
	// Disconnected, when not zero, is when its stream broke: the Snapshot
	// then carries no figures, only Remote, Scenario and Disconnected, and
	// the view must say so instead of showing figures as if live.
	Remote       string
	Disconnected time.Time
	// Retry is why the last attempt to reconnect failed ("" before one).
	Retry string
	// PID is the attached program's process id (the agent's Info), Since
	// when its agent started (the first line read, less its t_s); zero
	// when unknown.
	PID   int
	Since time.Time
	// Earlier are the programs read before this one on the address, oldest
	// first: each a process (or an agent) that went and was replaced, with
	// the size rows it had at its last line, kept apart from this one's.
	Earlier []EarlierProgram
	// OutOfRange counts the figures of the stream so far that were out of
	// their range and so are unknown (Decoder); 0 in process.
	OutOfRange int64
	// Route is the program's route an attached dashboard features in its
	// headline and sizes table (attach --route; "": the load's first
	// target's, else the busiest when first seen).
	Route string
	// Notice is a fact about the link the view must show while it holds:
	// the agent is another process than the one first read, and what
	// control is left ("" when none).
	Notice string
}

// EarlierProgram is a program an attach read before the one it reads now.
type EarlierProgram struct {
	PID          int
	Since, Until time.Time // its agent's start; its last line
	Sizes        SizeRows
}

// HistoryLen is how many samples of history a Snapshot carries.
const HistoryLen = 240

// ActionKind names what an Action does.
type ActionKind int

// The actions. Every key and every --keys step becomes one of these.
const (
	// SetWorkers sets the pool size to N (0 = inline on the Loop).
	SetWorkers ActionKind = iota + 1
	// AddWorkers changes the pool size by N (+1 or -1), clamped to 0..MaxWorkers.
	AddWorkers
	// Load changes the scenario's load by N steps.
	Load
	// TogglePause pauses or resumes the scenario's load.
	TogglePause
	// Reset empties the since-reset histograms and the scenario's figures.
	Reset
	// NextScenario stops the scenario and starts the next one in the registry.
	NextScenario
	// AddGOMAXPROCS changes GOMAXPROCS by N within 1..NumCPU (g and G),
	// to emulate a smaller machine; the runtime then stops updating it.
	AddGOMAXPROCS
	// DefaultGOMAXPROCS gives GOMAXPROCS back to the runtime
	// (runtime.SetDefaultGOMAXPROCS; the = key).
	DefaultGOMAXPROCS
	// AutoSize starts the size search (Search; the a key): sizes 1..2x
	// the usable CPUs, each held one window, then the fit and the size
	// picked. Any other action cancels it.
	AutoSize
	// CancelAutoSize stops the size search, keeping what it measured.
	CancelAutoSize
	// TogglePerTask turns the goroutine-per-task mode on or off (u).
	TogglePerTask
	// Turn turns the scenario's knob bound to Key (workload.Knob: server's
	// Loops, count's split, breakeven's payload kind and size, io's CPU
	// work); a scenario without that knob ignores it.
	Turn
	// TogglePriority turns priority workers on or off (y).
	TogglePriority
)

// Action is a request to change the session, applied by Session.Apply.
type Action struct {
	Kind ActionKind
	N    int
	// search marks the size search's own actions, which do not cancel it.
	search bool
	Key    string // Turn: the knob's key
}

// Balanced reports whether the pool's counts add up: Submitted =
// Completed + Failed + TimedOut + Canceled + Running + Queued. It holds at
// every sample; a false is a lost or double-counted task.
func (s Snapshot) Balanced() bool {
	return s.Completed+s.Failed+s.TimedOut+s.Canceled+s.Running+s.QueueDepth == s.Submitted
}
