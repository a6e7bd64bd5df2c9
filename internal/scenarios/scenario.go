// Package scenarios holds offtop's workloads: each reproduces one experiment
// of the write-ups in docs/seeds.md and does its real work (real HTTP over
// loopback, real hashing, real counting), checked against a known answer.
package scenarios

import (
	"time"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/probe"
	"github.com/offtop/offtop/pool"
)

// Env is what a scenario may use. Everything a scenario does to the process
// goes through these three: the Loop, the pool, and the clock.
type Env struct {
	// Post runs fn on the Loop, the single goroutine standing for Node's
	// main thread; it never blocks. Do posts and waits.
	Post func(fn func())
	Do   func(fn func())
	// Offload runs fn as a pool task and waits for it: on a worker when the
	// pool has workers, on the Loop when its size is 0 ("inline"). It returns
	// the task's error (a panic, a full queue, a closed pool).
	Offload func(fn func()) error
	// Submit queues fn as a pool task without waiting; done gets its outcome.
	Submit func(fn func(), done func(error)) error
	// SubmitTimeout is Submit with a limit on the task's run time on a
	// worker (pool.SubmitTimeout): past it done gets pool.ErrTimeout and
	// the worker's goroutine is abandoned and replaced. Inline tasks have no
	// limit.
	SubmitTimeout func(fn func(), timeout time.Duration, done func(error)) error
	// Counts reports the pool's counts (cheap; one lock). They are the
	// whole pool's, the session's other work included.
	Counts func() pool.Counts
	// Workers reports the pool's current size (0 = inline on the Loop).
	Workers func() int
	// PerTask reports whether every task gets a goroutine of its own
	// (pool.SetPerTask), inline or not; nil means never.
	PerTask func() bool
	// Scale multiplies work sizes (1 = sized for 2 cores).
	Scale float64
	// Window is the span of sliding-window percentiles.
	Window time.Duration
	// Resolution is the Loop-delay probe's period, for a scenario that
	// probes Loops of its own (server's --loops); 10ms when 0.
	Resolution time.Duration
	// LoopLag reads the session's own probe of the Loop (Post's), so a
	// scenario that reports the Loop's lateness reads it rather than run
	// a second probe beside it (100 wake-ups a second at 10ms); nil
	// (tests) means probe it yourself. Reset is the session's (the r key).
	LoopLag func() probe.LagStats
	// Headline takes one observation of the scenario's headline latency
	// (HeadlineSpec), which ended now and lasted d; the session files it
	// under the pool size in force when it began. Call it through
	// ObserveHeadline (nil-safe); it never blocks.
	Headline func(d time.Duration)
	// Served takes one request a scenario's server answered at endpoint
	// ("ping", "fast", "slow"), d from its arrival to the response, which
	// ended now, whoever sent it; the session files it under the pool
	// size in force when it arrived. Call it through ObserveServed
	// (nil-safe); it never blocks.
	Served func(endpoint string, d time.Duration)
}

// Readout is one figure a scenario shows. Key is its JSON name in the
// snapshot's extra object and ends in its unit (ping_p99_ms, fast_rps);
// Label and Text are for the screen.
type Readout struct {
	Key   string
	Label string
	// Value is the figure in Unit; Known false shows "n/a" and encodes as
	// JSON null.
	Value float64
	Known bool
	// Unit is Value's unit, set where the readout is made; the screen
	// formats Value by it. It is the unit Key names (UnitOf(Key)), which
	// is how a reader of the JSON, where only Key travels, gets it back.
	Unit Unit
	// Text, when non-empty, is shown instead of formatting Value.
	Text string
	// Bool marks a true/false readout (answer_ok): Value 1 is true.
	Bool bool
	// Str marks a text readout (split, listen_addr): Text is its value,
	// a JSON string.
	Str bool
}

// Status is what a running scenario reports at each sample.
type Status struct {
	// Load describes the current load in the scenario's own terms
	// ("2 clients per endpoint"), changed with [ and ].
	Load     string
	Readouts []Readout
}

// Scenario is one workload. Start is called once; Stop is called once after
// it and must return only when every goroutine the scenario started has
// exited and its servers are closed. The other methods may be called from
// any goroutine between Start and Stop.
type Scenario interface {
	// Name is the registry key, e.g. "server".
	Name() string
	// Look is the one-line "what to look at" shown on screen.
	Look() string
	Start(env Env) error
	Stop()
	Status() Status
	// SetLoad changes the load by delta steps ([ is -1, ] is +1).
	SetLoad(delta int)
	// Pause stops (true) or resumes (false) generating new work. It may
	// also be called before Start, for a run that starts paused
	// (--no-load): then Start generates nothing until Pause(false).
	Pause(paused bool)
	// Reset clears the scenario's own latency figures (the r key).
	Reset()
}

// Config holds scenario parameters from flags. The zero value gives every
// scenario its defaults.
type Config struct {
	// StallDuration and StallPeriod configure "stall" (default 100ms every 1s).
	StallDuration, StallPeriod time.Duration

	// CrashTimeout is the per-task deadline of "crash" (default 2s).
	CrashTimeout time.Duration
	// CrashRate is its task arrivals per second (default 25).
	CrashRate int
	// CrashPanicPercent is the share of its tasks that panic at start, in
	// percent (default 5; negative means none); [ and ] step it through
	// 0, 1, 5, 10, 25.
	CrashPanicPercent float64
	// CrashHangPercent is the share that hang until the scenario stops
	// (default 1; negative means none).
	CrashHangPercent float64

	// LoginBurstGap is the quiet time of "login" from the end of one burst
	// of hashes to the start of the next (default 4s).
	LoginBurstGap time.Duration
	// LoginReadEvery is its file-read period (default 20ms).
	LoginReadEvery time.Duration

	// CountSplit is how "count" hands a batch to the pool: SplitQueue (the
	// default, "") or one of the static splits (CountSplits).
	CountSplit string
	// CountJobs is count's jobs per batch at start (default 16; the burst
	// of seed 000 s5 is 64), within 1..256.
	CountJobs int
	// BreakevenPayload is breakeven's payload kind at start: PayloadBytes
	// (the default, "") or PayloadObjects.
	BreakevenPayload string
	// ServerLoops is the number of Loops "server" starts with (default 1),
	// 1..MaxLoops.
	ServerLoops int
	// Listen is the address "server" and "io" listen on (default
	// 127.0.0.1:0, a free loopback port).
	Listen string
	// Clock is the time the scenarios' schedules run on (their meters'
	// ticks, pauses, arrival streams and the elapsed time of their rates);
	// nil is the wall clock. A task's own latency is timed on the real
	// clock, always.
	Clock clock.Clock
}
