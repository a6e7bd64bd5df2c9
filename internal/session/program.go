package session

import (
	"errors"
	"fmt"

	"github.com/offtop/offtop/internal/scenarios"
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

// programCheck refuses an Action a Program session does not apply.
func (s *Session) programCheck(a Action) error {
	if s.cfg.Program == nil {
		return nil
	}
	if !ProgramActions(a.Kind) {
		return fmt.Errorf("%w: %s is not available in an attached program", ErrAction, a.Kind)
	}
	if (a.Kind == SetWorkers || a.Kind == AddWorkers) && s.cfg.Program.Pool == nil {
		return fmt.Errorf("%w: the program registered no pool", ErrAction)
	}
	return nil
}

// inliner is a ProgramPool that says whether its size 0 runs tasks
// (*pool.Pool: Options.Inline given; a Meter: MinSize 0).
type inliner interface{ Inlines() bool }

// ErrNoInline: size 0 asked of a program's pool that has no inline path.
var ErrNoInline = errors.New("size 0 refused: no inline path (pool.Options.Inline); tasks would stay queued")

// zeroRefused reports whether the pool in a Program session refuses size
// 0: it says it has no inline path.
func (s *Session) zeroRefused() bool {
	if s.cfg.Program == nil {
		return false
	}
	in, ok := s.cfg.Program.Pool.(inliner)
	return ok && !in.Inlines()
}

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
func (programScenario) Start(scenarios.Env) error { return nil }
func (programScenario) Stop()                     {}
func (programScenario) Status() scenarios.Status  { return scenarios.Status{Load: "the program's own"} }
func (programScenario) SetLoad(int)               {}
func (programScenario) Pause(bool)                {}
func (programScenario) Reset()                    {}
