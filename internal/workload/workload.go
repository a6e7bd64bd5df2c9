// Package workload is what a session runs, as the session, the view and
// the reports see it, with no workload linked: the Env a workload gets, the
// Status and Readouts it reports, and what it declares of itself as data
// (its headline, sizing rule and knobs). internal/scenarios implements it;
// a Catalog hands its workloads to a session by name.
package workload

import (
	"math"
	"strings"
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

// Workload is one workload: a scenario, or a stand-in for a program. Start is called once; Stop is called once after
// it and must return only when every goroutine the scenario started has
// exited and its servers are closed. The other methods may be called from
// any goroutine between Start and Stop.
type Workload interface {
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

// HeadlineSpec names a scenario's headline: the one figure to watch, the
// latency of what the scenario exists to show. The session keeps a histogram of it per pool size; the figure shown is its
// p99 in Unit.
type HeadlineSpec struct {
	// Name is what is measured, as the JSON field headline and the screen
	// say it: "ping", "file read", "request".
	Name string
	// Unit is the figure's unit; every headline today is a latency in ms.
	Unit string
	// LowerBetter says which way is better; the sizes panel marks the best
	// size by it.
	LowerBetter bool
	// FromProbe says the headline is the Loop probe itself (stall): the
	// session feeds it from the probe, the scenario reports nothing.
	FromProbe bool
}

// Label is the headline figure as the screen names it: "ping p99".
func (h HeadlineSpec) Label() string { return h.Name + " p99" }

// Rule is the best-size rule in words: "lowest ping p99".
func (h HeadlineSpec) Rule() string {
	if h.LowerBetter {
		return "lowest " + h.Label()
	}
	return "highest " + h.Label()
}

// ObserveServed reports one request served at endpoint, d from arrival to
// response, to the session (Env.Served); a no-op when the Env has none.
func (e Env) ObserveServed(endpoint string, d time.Duration) {
	if e.Served != nil {
		e.Served(endpoint, d)
	}
}

// ObserveHeadline reports one headline observation of d, which ended now,
// to the session (Env.Headline); a no-op when the Env has none (tests).
func (e Env) ObserveHeadline(d time.Duration) {
	if e.Headline != nil {
		e.Headline(d)
	}
}

// Unit is a readout's unit: what its Value counts.
type Unit string

// The units a readout's Value may be in; the JSON key of a readout ends in
// its unit's suffix (UnitOf).
const (
	// Count is a plain number: a count or a ratio (no suffix).
	Count Unit = ""
	// UnitMS is milliseconds (_ms).
	UnitMS Unit = "ms"
	// UnitSeconds is seconds (_s, _seconds).
	UnitSeconds Unit = "s"
	// UnitPerSec is events per second (_per_s).
	UnitPerSec Unit = "/s"
	// UnitRPS is requests per second (_rps).
	UnitRPS Unit = "rps"
	// UnitPercent is percent, 100 = all (_pct, _percent).
	UnitPercent Unit = "%"
	// UnitBytes is bytes (_bytes); shown in MiB (2^20 bytes).
	UnitBytes Unit = "bytes"
	// UnitKiB is kibibytes, 2^10 bytes (_kb).
	UnitKiB Unit = "KiB"
)

// unitSuffixes are the key suffixes of the extra object's naming rule
// (docs/json-lines.md) and the unit each names, in the order they are
// tried: "_per_s" before "_s", "_seconds" before "_s".
var unitSuffixes = []struct {
	suffix string
	unit   Unit
}{
	{"_ms", UnitMS}, {"_per_s", UnitPerSec}, {"_seconds", UnitSeconds}, {"_s", UnitSeconds},
	{"_rps", UnitRPS}, {"_pct", UnitPercent}, {"_percent", UnitPercent}, {"_bytes", UnitBytes}, {"_kb", UnitKiB},
}

// UnitOf is the unit a readout key names by its suffix (Count when none):
// the naming rule of the extra object (docs/json-lines.md), by which a
// reader of the JSON gets a readout's unit back.
func UnitOf(key string) Unit {
	for _, u := range unitSuffixes {
		if strings.HasSuffix(key, u.suffix) {
			return u.unit
		}
	}
	return Count
}

// LabelOf is the screen's label for a readout that reached offtop by its
// key alone (an attached program's extra object): the key without the
// unit suffix UnitOf reads (the value's unit says it), its words spaced,
// and the Node agent's figures by their names (docs/json-lines.md): "ELD
// p99 raw" for eld_p99_ms (Node's monitorEventLoopDelay, raw), "ELU w0"
// for elu_w0, "ELU main total" for elu_main_total.
func LabelOf(key string) string {
	k := key
	for _, u := range unitSuffixes {
		if s, ok := strings.CutSuffix(k, u.suffix); ok && s != "" {
			k = s
			break
		}
	}
	raw := false
	switch {
	case strings.HasPrefix(k, "eld_"):
		k, raw = "ELD_"+k[len("eld_"):], true
	case strings.HasPrefix(k, "elu_"):
		k = "ELU_" + k[len("elu_"):]
	}
	k = strings.ReplaceAll(k, "_", " ")
	if raw {
		k += " raw"
	}
	return k
}

// In gives r the unit u (Num(...).In(UnitRPS)).
func (r Readout) In(u Unit) Readout { r.Unit = u; return r }

// Knob is one live setting a scenario offers besides the common keys: the
// key that turns it and by how much, as data, so the key map, the help
// screen, --keys and the session need no code per scenario (the l and L
// keys of server's Loops, count's split, breakeven's payload kind).
type Knob struct {
	// Key is the key string that turns the knob (Bubble Tea's
	// KeyPressMsg.String(): "l", "L", "p").
	Key string
	// Name is what the knob sets ("loops", "split") and Unit its unit
	// ("" when it is a choice, "Loops"); Step is what one press adds (+1,
	// -1; a choice cycles forward on +1).
	Name, Unit string
	Step       int
	// Help is the one line the help screen shows for the key.
	Help string
}

// Knobber is a scenario with Knobs (Meta.Knobs). Turn applies one press
// of the knob bound to key (Knob.Step) and is a no-op for a key it has no
// knob for.
type Knobber interface {
	Turn(key string)
}

// SizeRule names how the size to pick is found for a scenario: the kind
// of workload decides which figure matters.
type SizeRule int

const (
	// RuleKnee is for throughput-bound scenarios (count, breakeven): the
	// knee of the Universal Scalability Law fitted to throughput, the
	// size after which one more worker adds under a quarter of one
	// worker's throughput (fit.USL.Knee).
	RuleKnee SizeRule = iota + 1
	// RuleLatency is for scenarios whose headline is a latency a user
	// waits on (server, login): the size with the lowest headline p99
	// among those that keep the Loop's p99 within LoopP99BoundMS.
	RuleLatency
	// RuleLittle is for open-loop I/O (io): Little's law, L = arrival
	// rate x service time, both measured (fit.LittleWorkers).
	RuleLittle
)

// LoopP99BoundMS is the Loop probe's p99 a size must stay within to be
// picked by RuleLatency, in ms: 50 ms, the budget the RAIL model gives a
// main thread to handle an input before a user perceives the delay.
const LoopP99BoundMS = 50.0

// TieWithin is how close two headline figures are when a size pick
// calls them tied and takes the fewer workers: 10%. Over 1 ms, two
// copies of one outside reader on one load differed by 0.8-11% here
// (docs/measurements.md): closer than that, readers order two sizes
// differently, and the fewer workers cost less.
const TieWithin = 0.10

// Tied reports whether headline figure v is within TieWithin of best:
// a size pick then takes the fewer workers of the two.
func Tied(v, best float64) bool { return math.Abs(v-best) <= TieWithin*math.Abs(best) }

// String is the rule's JSON name: "knee", "latency", "little".
func (r SizeRule) String() string {
	switch r {
	case RuleKnee:
		return "knee"
	case RuleLatency:
		return "latency"
	case RuleLittle:
		return "little"
	}
	return "none"
}

// SizingSpec is a scenario's sizing metadata, beside its headline.
type SizingSpec struct {
	Rule SizeRule
	// SweepLoad is the load step a sweep runs the scenario at, as that
	// many presses of ] from its start (negative: [). io sweeps at 160
	// calls/s (+2 from 40): the rate at which Little's law needs 8
	// workers, so a sweep up to 16 spans too few and enough.
	SweepLoad int
}
