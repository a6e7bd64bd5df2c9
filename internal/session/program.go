package session

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/offtop/offtop/internal/sysinfo"
	"github.com/offtop/offtop/internal/workload"
	"github.com/offtop/offtop/pool"
)

// DefaultProgramName names a Program that gives no Name.
const DefaultProgramName = "program"

// Program is a running program a Session watches instead of running a
// scenario: offtop's agent inside the user's own process. The session
// starts no load; it samples the process, the Loop probe on Post and the
// pool, and applies only the Actions that make sense there (ProgramActions).
type Program struct {
	// Name is what the Snapshot's Scenario field says (DefaultProgramName
	// when empty).
	Name string
	// Pool is the program's pool (offtop's, or a metered one of its own),
	// or nil when it has none (the Snapshot then shows 0 workers and no
	// tasks). The session reads and resizes it and never closes it: its
	// owner does, after closing the session.
	Pool ProgramPool
	// Post runs fn later on the program's own single-goroutine loop and
	// must not block; the Loop probe is posted there. nil: the session's
	// own idle Loop, so the probe reads how late a goroutine runs in this
	// process.
	Post func(fn func())
	// Endpoints, when not nil, is read at every sample for the Snapshot's
	// Endpoints (the agent's middleware); it must not block.
	Endpoints func() []Endpoint
}

// ObserveServed files one request of a program's HTTP route that took d
// and ended now under the size row in force when it arrived (SizeRow.Served,
// keyed by route), as a scenario's server files its own; none while the
// row is paused or idle.
func (s *Session) ObserveServed(route string, d time.Duration) { s.sizes.observeServed(route, d) }

// ProgramPool is a program's pool as a Program session reads and resizes
// it: a *pool.Pool, or a *pool.Meter over a pool of the program's own.
type ProgramPool = pool.Accounted

// ProgramActions reports whether a Session watching a Program applies k:
// a pool resize (when it has a pool), reset, and GOMAXPROCS.
func ProgramActions(k ActionKind) bool {
	switch k {
	case SetWorkers, AddWorkers, Reset, AddGOMAXPROCS, DefaultGOMAXPROCS, AutoSize, CancelAutoSize:
		return true
	}
	return false
}

// Accepts reports whether an attached agent that takes acts
// (Snapshot.Actions; nil: ProgramActions) applies an Action of kind k.
func Accepts(acts []string, k ActionKind) bool {
	return ProgramActions(k) && (acts == nil || slices.Contains(acts, k.String()))
}

// Takes reports whether s's program applies an Action of kind k: every
// kind in offtop's own run; attached, those its agent takes (Accepts).
func (s Snapshot) Takes(k ActionKind) bool { return s.Remote == "" || Accepts(s.Actions, k) }

// programTarget is a Program as a session's target: the program's pool
// and loop, no load of the session's own, and only ProgramActions.
type programTarget struct{ pg *Program }

// newProgramTarget is c.Program's target, c completed for it (newTarget).
func newProgramTarget(c *Config) target {
	pg := *c.Program // the caller's stays as given
	c.Program = &pg
	if pg.Name == "" {
		pg.Name = DefaultProgramName
	}
	c.Scenario, c.Workers = pg.Name, 0
	if pg.Pool != nil {
		c.Workers = pg.Pool.Stats().Size
	}
	return programTarget{&pg}
}

func (t programTarget) first(Config) (workload.Workload, error) {
	return programScenario{name: t.pg.Name, loop: t.pg.Post != nil}, nil
}

func (t programTarget) pool() ProgramPool     { return t.pg.Pool }
func (t programTarget) post() func(fn func()) { return t.pg.Post }

// allows refuses an Action not in ProgramActions, and a resize when the
// program registered no pool.
func (t programTarget) allows(a Action) error {
	if !ProgramActions(a.Kind) {
		return fmt.Errorf("%w: %s is not available in an attached program", ErrAction, a.Kind)
	}
	if (a.Kind == SetWorkers || a.Kind == AddWorkers) && t.pg.Pool == nil {
		return fmt.Errorf("%w: the program registered no pool", ErrAction)
	}
	return nil
}

// zeroRefused: the program's pool says it has no inline path.
func (t programTarget) zeroRefused() bool {
	in, ok := t.pg.Pool.(inliner)
	return ok && !in.Inlines()
}

// suggest is the CPU rule alone: a program named like a scenario is not it.
func (programTarget) suggest(_ string, cpus sysinfo.CPUs) (int, string) { return cpus.Suggest(false) }

// startWorkers is never asked (a Program's Workers is its pool's size).
func (t programTarget) startWorkers(name string, cpus sysinfo.CPUs) int {
	n, _ := t.suggest(name, cpus)
	return n
}

// sizing is the knee: the rule that needs only throughput.
func (programTarget) sizing(string) workload.SizeRule { return workload.RuleKnee }

// headline is the Loop probe: a program reports no headline of its own.
func (programTarget) headline(string) workload.HeadlineSpec { return workload.ProbeHeadline }

// sampled reads the program's Endpoints and follows its pool
// (followProgram), the requests its routes answered counting as work.
func (t programTarget) sampled(s *Session, sm *sampler, ps pool.Stats, resizes int64) []Endpoint {
	var eps []Endpoint
	if t.pg.Endpoints != nil {
		eps = t.pg.Endpoints()
	}
	if t.pg.Pool != nil {
		s.followProgram(sm, ps, resizes, answered(eps))
	}
	return eps
}

// answered is the requests eps have answered since their middleware
// started: the sum of their Counts.
func answered(eps []Endpoint) int64 {
	var n int64
	for _, e := range eps {
		n += e.Count
	}
	return n
}

func (programTarget) next(string) (workload.Workload, error)  { return nil, errNoSwitch }
func (programTarget) again(string) (workload.Workload, error) { return nil, errNoSwitch }

// errNoSwitch: a program is the one workload of its session (allows
// refuses NextScenario before it is asked).
var errNoSwitch = errors.New("an attached program has no next scenario")

// inliner is a ProgramPool that says whether its size 0 runs tasks
// (*pool.Pool: Options.Inline given; a Meter: MinSize 0).
type inliner interface{ Inlines() bool }

// ErrNoInline: size 0 asked of a program's pool that has no inline path.
var ErrNoInline = errors.New("size 0 refused: no inline path (pool.Options.Inline); tasks would stay queued")

// programScenario stands in for a scenario in a Program session: it runs
// nothing and reports nothing of its own.
// loop is whether the program gave its loop (Program.Post).
type programScenario struct {
	name string
	loop bool
}

func (p programScenario) Name() string { return p.name }

// Look says whose lateness the Loop probe reads: the program's loop, or,
// with none given, a goroutine of the agent's own.
func (p programScenario) Look() string {
	if !p.loop {
		return "your program gave no loop (agent.Options.Post): the Loop probe is an agent goroutine's lateness; the pool is its pool"
	}
	return "your program: the Loop probe is its loop's lateness; the pool is its pool"
}
func (programScenario) Start(workload.Env) error { return nil }
func (programScenario) Stop()                    {}
func (programScenario) Status() workload.Status  { return workload.Status{Load: "the program's own"} }
func (programScenario) SetLoad(int)              {}
func (programScenario) Pause(bool)               {}
func (programScenario) Reset()                   {}
