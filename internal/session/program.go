package session

import (
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

// programScenario stands in for a scenario in a Program session: it runs
// nothing and reports nothing of its own.
type programScenario struct{ name string }

func (p programScenario) Name() string { return p.name }
func (p programScenario) Look() string {
	return "your program: the Loop probe is its loop's lateness; the pool is its pool"
}
func (programScenario) Start(scenarios.Env) error { return nil }
func (programScenario) Stop()                     {}
func (programScenario) Status() scenarios.Status  { return scenarios.Status{Load: "the program's own"} }
func (programScenario) SetLoad(int)               {}
func (programScenario) Pause(bool)                {}
func (programScenario) Reset()                    {}
