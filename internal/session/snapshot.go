package session

import (
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
)

// Snapshot is everything offtop shows at one sample: an immutable value.
// Slices in it are fresh copies; nobody writes to them after Snapshot
// returns, so readers on any goroutine may keep it.
type Snapshot struct {
	// Elapsed is the wall time since the session started.
	Elapsed  time.Duration
	Scenario string
	// Look is the scenario's one-line "what to look at".
	Look string
	// Load is the scenario's load in its own terms ([ and ] change it).
	Load   string
	Paused bool
	// PerTask: every task gets a goroutine of its own, no queue and no
	// bound, instead of a pool worker (pool.SetPerTask; the u key).
	PerTask bool

	// Workers is the pool's target size; 0 means inline on the Loop.
	Workers    int
	GOMAXPROCS int
	// GOMAXPROCSSource says who set GOMAXPROCS: "runtime" (Go's default,
	// still updated by the runtime), "env" (the GOMAXPROCS variable) or
	// "offtop" (g, G or --gomaxprocs); RuntimeGOMAXPROCS is what the runtime
	// would pick (sysinfo.CPUs.RuntimeDefaultGOMAXPROCS).
	GOMAXPROCSSource  string
	RuntimeGOMAXPROCS int
	NumCPU            int
	CPULimit          float64 // CPUs allowed by a cgroup quota; 0 when none or unknown
	// AffinityCPUs is the CPUs in the affinity mask (0: unknown); UsableCPUs
	// is min(affinity, quota) unrounded; CPUWarning says in one line why a
	// limit is unknown ("" when all was read).
	AffinityCPUs int
	UsableCPUs   float64
	CPUWarning   string
	// SuggestedWorkers is the pool size offtop suggests, SuggestedRule the
	// rule that gave it ("suggest 1 = floor(1.5 CPU quota)").
	SuggestedWorkers int
	SuggestedRule    string
	// Oversubscribed: more workers than usable CPUs (or than GOMAXPROCS,
	// when that is lower).
	Oversubscribed bool

	// Pool counts since the session started:
	// Submitted = Completed + Failed + TimedOut + Running + Queued (issue 3;
	// DESIGN.md's sum without TimedOut holds while no task has a deadline).
	// Failed counts tasks that panicked or were dropped by Close; TimedOut
	// tasks that ran past their deadline.
	QueueDepth                            int64 // = Queued
	Submitted, Completed, Failed, Running int64
	Rejected, Replaced                    int64
	TimedOut                              int64
	// Abandoned is the goroutines abandoned now, still running a timed-out
	// task; Stuck the workers holding their slot with one because
	// Abandoned was at the pool's cap.
	Abandoned, Stuck int64
	ThroughputPerSec float64   // completed tasks per second over the window
	WorkerSlots      []int     // slot of each worker, parallel to WorkerBusy
	WorkerBusy       []float64 // 0..1 per worker over the last interval
	WorkerOnCPU      []float64 // 0..1 per worker; nil when the OS gives no thread clock
	WorkerRetiring   []bool
	LoopBusy         float64 // 0..1, share of the last interval the Loop spent in callbacks
	LoopQueued       int     // callbacks waiting on the Loop

	// Process figures. CPUPercent is CPU time over wall time in the last
	// interval, 100 = one core; -1 when unknown. RSSBytes is -1 when unknown.
	CPUPercent float64
	CPUSeconds float64
	RSSBytes   int64
	Goroutines int

	// Loop-delay probe (lateness of a callback due every Resolution on the
	// Loop): Probe is coordinated-omission corrected over the window,
	// ProbeRaw the same raw, ProbeTotal corrected since the last reset.
	Probe, ProbeRaw, ProbeTotal hist.Summary
	ProbeMissed                 int64
	// ProbeStalled is how long the Loop has been blocked right now, past
	// one resolution (the probe's sample in flight has not run); 0 when not.
	ProbeStalled time.Duration
	// Sched is the scheduler probe (the same on a free goroutine), corrected,
	// over the window; SchedRuntime is runtime/metrics /sched/latencies over
	// the last interval.
	Sched, SchedRuntime hist.Summary
	// Task is queue wait + run (submit to end) of pool tasks over the window;
	// TaskWait is the queue wait alone.
	Task, TaskWait hist.Summary

	// History, oldest first, one point per sample, at most HistoryLen,
	// emptied by r and by a switch of scenario: the Loop probe's corrected
	// p99 in ms over the last second (NaN while it has no sample), pool
	// queue depth, and the pool size in force (0 = inline).
	ProbeP99History   []float64
	QueueDepthHistory []float64
	WorkersHistory    []float64

	// Headline is the scenario's headline latency (scenarios.Headline)
	// over the window, every size together: the figure to watch, now.
	Headline hist.Summary

	Readouts []scenarios.Readout

	// Sizes is the per-size accounting of every scenario run so far
	// (SizeRow), scenarios in order of first use, sizes ascending.
	Sizes []SizeRow
	// Search is the size search's state (the a key; the zero value when
	// none has run).
	Search Search

	Interval, Resolution, Window time.Duration
	// SamplesMissed counts sample times skipped since the start because a
	// sample ran late (the sampler starved of CPU, or the process stopped).
	SamplesMissed int64

	// Remote is the agent address a remote Source reads ("" in process).
	// Disconnected, when not zero, is when its stream broke: the Snapshot
	// then carries no figures, only Remote, Scenario and Disconnected, and
	// the view must say so instead of showing figures as if live.
	Remote       string
	Disconnected time.Time
	// Retry is why the last attempt to reconnect failed ("" before one).
	Retry string
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
	// Turn turns the scenario's knob bound to Key (scenarios.Knob: server's
	// Loops, count's split, breakeven's payload kind and size, io's CPU
	// work); a scenario without that knob ignores it.
	Turn
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
// Completed + Failed + TimedOut + Running + Queued. It holds at every
// sample; a false is a lost or double-counted task.
func (s Snapshot) Balanced() bool {
	return s.Completed+s.Failed+s.TimedOut+s.Running+s.QueueDepth == s.Submitted
}
