package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/workload"
)

// Meta is what offtop knows of a scenario without making one: its
// registry entry. Callers ask Lookup, never a throwaway scenario.
type Meta struct {
	// Name is the registry key, e.g. "server"; Summary its one line for
	// `offtop scenarios`.
	Name, Summary string
	// SweepKeys are the readouts a sweep table shows for it beside the
	// common columns, in order: the figures its seed (docs/seeds.md)
	// reports, such as server's ping p99 or breakeven's wall per mode.
	SweepKeys []string
	// KeepsLoop says its Loop must stay responsive (it serves requests):
	// offtop suggests one worker fewer than the CPUs for it, so the Loop
	// keeps a core (cores - 1).
	KeepsLoop bool
	// Workers is its own default pool size whatever the CPUs, used when no
	// size is given; 0 means the CPU-based suggestion.
	Workers int
	// Headline is the one figure to watch (HeadlineSpec).
	Headline HeadlineSpec
	// Sizing is how the size to pick is found, and the sweep's load
	// (SizingSpec).
	Sizing SizingSpec
	// Knobs are its live settings besides the common keys, as data; the
	// scenario's Turn applies them (Knobber).
	Knobs []Knob
	// Flags are the command-line flags (names without the dashes) that
	// only some scenarios read, this one among them: offtop refuses such a
	// flag given for a scenario whose entry does not list it (FlagTakers).
	Flags []string

	make Factory
}

// Factory makes a fresh scenario; the Config gives its parameters.
type Factory func(Config) Scenario

// Default is the scenario offtop runs when none is named.
const Default = "server"

// registry holds every scenario's entry, keyed by name: the seven
// workloads, each made by its file's constructor.
var registry = map[string]Meta{}

func init() {
	for _, m := range []Meta{
		{Name: "server", Summary: "real HTTP on 127.0.0.1: /ping beside /fast fib(30) and /slow fib(37); workers=0 is Node's plain server (seeds 000 s4, 001)",
			// the seed's columns: the light endpoint's tail, both rates
			SweepKeys: []string{"ping_p99_ms", "fast_rps", "fast_p99_ms", "slow_rps", "loop_worst_p99_ms"},
			KeepsLoop: true, // the Loop answers /ping
			Headline:  HeadlineSpec{Name: "ping", Unit: "ms", LowerBetter: true},
			Sizing:    SizingSpec{Rule: RuleLatency},
			Knobs:     serverKnobs,
			Flags:     []string{"loops", "listen", "allow-remote", "no-load"},
			make:      func(c Config) Scenario { return newServer(c) }},
		{Name: "login", Summary: "bursts of 40 PBKDF2-SHA512 logins (220,000 iterations) on a 4-worker pool that also serves 64KB file reads: reads wait behind hashing (seed 000 s6)",
			KeepsLoop: true,         // a login server's Loop answers requests
			Workers:   LoginWorkers, // libuv's default thread pool size
			Headline:  HeadlineSpec{Name: "file read", Unit: "ms", LowerBetter: true},
			Sizing:    SizingSpec{Rule: RuleLatency},
			make:      func(c Config) Scenario { return newLogin(c) }},
		{Name: "io", Summary: "open-loop tasks that each wait on a loopback HTTP call (50ms delay), optional fib(20) first: throughput follows workers, CPU stays low (seed 004)",
			// the seed's figures: what the pool can serve, and the wait
			SweepKeys: []string{"capacity_per_s", "request_p99_ms"},
			Workers:   ioWorkers,
			Headline:  HeadlineSpec{Name: "request", Unit: "ms", LowerBetter: true},
			Sizing:    SizingSpec{Rule: RuleLittle, SweepLoad: 2},
			Knobs:     ioKnobs,
			Flags:     []string{"listen", "allow-remote", "no-load"},
			make:      func(c Config) Scenario { return newIO(c) }},
		{Name: "count", Summary: "batches of counting jobs; each batch checks its sum: wall vs CPU, speed-up against 1 worker, the split bugs and the burst (seed 000, 1-3 and 5)",
			// the seed's columns: wall and CPU per batch, and when the
			// first and median task of the batch came back (section 5)
			SweepKeys: []string{"batch_wall_ms", "batch_cpu_ms", "first_done_ms", "median_done_ms"},
			Headline:  HeadlineSpec{Name: "batch wall", Unit: "ms", LowerBetter: true},
			Sizing:    SizingSpec{Rule: RuleKnee},
			Knobs:     countKnobs,
			Flags:     []string{"split", "jobs"},
			make:      func(c Config) Scenario { return newCount(c) }},
		{Name: "breakeven", Summary: "32 SHA-256 tasks over a payload (64KB..8MB) x 1..64 rounds, inline vs pool-copy vs pool-move: dispatch overhead and break-even CPU per task (seed 002)",
			// the seed's columns: wall per batch in each mode, the speed-up
			// of pool-move, its overhead per task and the break-even CPU
			SweepKeys: []string{"inline_wall_ms", "copy_wall_ms", "move_wall_ms", "move_speedup",
				"move_overhead_per_task_ms", "move_break_even_cpu_ms"},
			Headline: HeadlineSpec{Name: "move batch wall", Unit: "ms", LowerBetter: true},
			Sizing:   SizingSpec{Rule: RuleKnee},
			Knobs:    breakevenKnobs,
			Flags:    []string{"payload"},
			make:     func(c Config) Scenario { return newBreakeven(c) }},
		{Name: "crash", Summary: "a steady stream of ~1ms tasks; 5% panic, 1% hang past a 2s deadline: failed, timed out, abandoned, and no task pending forever (seed 003)",
			// the seed's figures: what failed, what hung past its deadline,
			// what is abandoned, and the workers that replaced them
			SweepKeys: []string{"panicked", "timed_out", "abandoned", "replaced"},
			Headline:  HeadlineSpec{Name: "task wait+run", Unit: "ms", LowerBetter: true},
			Sizing:    SizingSpec{Rule: RuleKnee},
			make:      func(c Config) Scenario { return newCrash(c) }},
		{Name: "stall", Summary: "the Loop busy-waits for exactly D every P (default 100ms every 1s): calibrates the probe",
			Headline: probeHeadline,
			Sizing:   SizingSpec{Rule: RuleKnee},
			Flags:    []string{"stall", "stall-every"},
			make:     func(c Config) Scenario { return newStall(c) }},
	} {
		if _, dup := registry[m.Name]; dup {
			panic("scenarios: duplicate " + m.Name)
		}
		registry[m.Name] = m
	}
	workload.Register(Catalog)
}

// Catalog is the registry as a session's catalog of workloads: a session
// whose Config names no catalog uses it (workload.Register).
var Catalog workload.Catalog = catalog{}

type catalog struct{}

func (catalog) Default() string { return Default }
func (catalog) Names() []string { return Names() }

func (catalog) Info(name string) (workload.Info, bool) {
	m, ok := registry[name]
	return workload.Info{Headline: Headline(name), KeepsLoop: m.KeepsLoop, Workers: m.Workers, Sizing: Sizing(name)}, ok
}

func (catalog) New(name string, c Config) (Scenario, error) { return New(name, c) }

// probeHeadline is the Loop probe as a headline: stall's, and that of a
// name with no entry.
var probeHeadline = workload.ProbeHeadline

// Lookup returns the entry of a registered scenario.
func Lookup(name string) (Meta, bool) {
	m, ok := registry[name]
	return m, ok
}

// ErrUnknown is returned by New for a name not in the registry.
var ErrUnknown = errors.New("unknown scenario")

// New returns a fresh scenario by name.
func New(name string, c Config) (Scenario, error) {
	m, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (have: %s)", ErrUnknown, name, strings.Join(Names(), ", "))
	}
	s := m.make(c)
	if b, ok := s.(interface{ useClock(clock.Clock) }); ok {
		b.useClock(c.Clock)
	}
	return s, nil
}

// FlagTakers lists, in the order of Names, the scenarios whose entry
// lists flag (a name without the dashes) among its Flags; nil for a flag
// no entry lists (one every scenario reads).
func FlagTakers(flag string) []string {
	var takers []string
	for _, n := range Names() {
		if slices.Contains(registry[n].Flags, flag) {
			takers = append(takers, n)
		}
	}
	return takers
}

// Names lists the registered scenarios, the default first, the rest sorted.
func Names() []string {
	var n []string
	for k := range registry {
		if k != Default {
			n = append(n, k)
		}
	}
	sort.Strings(n)
	if _, ok := registry[Default]; ok {
		n = append([]string{Default}, n...)
	}
	return n
}

// Summary is the one-line description of a registered scenario for
// `offtop scenarios`.
func Summary(name string) string { return registry[name].Summary }

// SweepKeys returns the headline readout keys of a registered scenario,
// none for a scenario without (or a name not registered).
func SweepKeys(name string) []string { return registry[name].SweepKeys }

// Headline returns the headline of a registered scenario; a name with none
// gets the Loop probe (a scenario added without an entry still has a
// figure to watch, never a blank one).
func Headline(name string) HeadlineSpec {
	if m, ok := registry[name]; ok && m.Headline.Name != "" {
		return m.Headline
	}
	return probeHeadline
}

// AllKnobs lists the knobs of every scenario (workload.AllKnobs), sorted
// by key, each key once.
func AllKnobs() []Knob { return workload.AllKnobs() }
