package session

import (
	"errors"
	"fmt"

	"github.com/offtop/offtop/internal/sysinfo"
	"github.com/offtop/offtop/internal/workload"
	"github.com/offtop/offtop/pool"
)

// target is what a session runs: the workloads of a catalog
// (scenarioTarget) or a program it watches (programTarget). What differs
// between the two is in their methods; the session never asks which it has.
type target interface {
	// first is the workload the run starts with; c is the session's
	// config, its defaults filled in.
	first(c Config) (workload.Workload, error)
	// pool is the pool the session samples and resizes when the target
	// has one of its own; nil: the session makes one.
	pool() ProgramPool
	// post is where the Loop probe is posted; nil: the session's Loop.
	post() func(fn func())
	// allows is nil when the target applies a, else why not (wrapping
	// ErrAction).
	allows(a Action) error
	// zeroRefused reports whether size 0 is refused: a program's pool
	// without an inline path.
	zeroRefused() bool
	// suggest is the pool size offtop suggests for the workload named
	// name on cpus, and its rule; startWorkers the size a run of it
	// starts with when none is given.
	suggest(name string, cpus sysinfo.CPUs) (int, string)
	startWorkers(name string, cpus sysinfo.CPUs) int
	// headline is the headline of the workload named name, sizing its
	// size search's rule.
	headline(name string) workload.HeadlineSpec
	sizing(name string) workload.SizeRule
	// sampled is the target's own part of a sample: ps is the pool as the
	// sample read it, resizes the Actions' resize count read before it. It
	// returns the sample's Endpoints.
	sampled(s *Session, sm *sampler, ps pool.Stats, resizes int64) []Endpoint
	// next is the workload after the one named name (the tab key).
	next(name string) (workload.Workload, error)
	// again is a fresh copy of the workload named name, to fall back to
	// when the next one fails to start.
	again(name string) (workload.Workload, error)
}

// errNoCatalog: a scenario asked of a binary that links none.
var errNoCatalog = errors.New("no scenarios in this program (Config.Catalog nil, none registered)")

// newTarget is c's target, c completed for it: for a Program, its name
// (or DefaultProgramName) as the Scenario and its pool's size as Workers;
// else the catalog (Config.Catalog, or the registered one) and its
// Default when no Scenario is named.
func newTarget(c *Config) (target, error) {
	if c.Program != nil {
		return newProgramTarget(c), nil
	}
	cat := c.Catalog
	if cat == nil {
		cat = workload.Registered()
	}
	if cat == nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, errNoCatalog)
	}
	if c.Scenario == "" {
		c.Scenario = cat.Default()
	}
	return scenarioTarget{cat: cat, cfg: c.Scenarios}, nil
}

// scenarioTarget runs the workloads of cat with cfg's parameters.
type scenarioTarget struct {
	cat workload.Catalog
	cfg workload.Config
}

func (t scenarioTarget) first(c Config) (workload.Workload, error) {
	w, err := t.cat.New(c.Scenario, t.cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return w, nil
}

func (scenarioTarget) pool() ProgramPool     { return nil }
func (scenarioTarget) post() func(fn func()) { return nil }
func (scenarioTarget) allows(Action) error   { return nil }
func (scenarioTarget) zeroRefused() bool     { return false }
func (scenarioTarget) sampled(*Session, *sampler, pool.Stats, int64) []Endpoint {
	return nil
}

// info is what the catalog says of name; a nil catalog (Suggest with none
// registered) knows no name.
func (t scenarioTarget) info(name string) workload.Info {
	if t.cat == nil {
		return workload.Info{Headline: workload.ProbeHeadline}
	}
	in, _ := t.cat.Info(name)
	return in
}

// suggest is floor(min(affinity, quota)), at least 1, one fewer for a
// workload whose Loop must stay responsive (workload.Info.KeepsLoop:
// server, login; seed 003's cores - 1, docs/seeds.md). See sysinfo.CPUs.Suggest.
func (t scenarioTarget) suggest(name string, cpus sysinfo.CPUs) (int, string) {
	return cpus.Suggest(t.info(name).KeepsLoop)
}

// startWorkers is the workload's own default where it has one
// (workload.Info.Workers: login's 4, libuv's thread pool; io's 4), within
// 1..MaxWorkers, else the suggestion.
func (t scenarioTarget) startWorkers(name string, cpus sysinfo.CPUs) int {
	if w := t.info(name).Workers; w > 0 {
		return min(w, MaxWorkers)
	}
	n, _ := t.suggest(name, cpus)
	return n
}

func (t scenarioTarget) headline(name string) workload.HeadlineSpec { return t.info(name).Headline }

func (t scenarioTarget) sizing(name string) workload.SizeRule {
	if r := t.info(name).Sizing.Rule; r != 0 {
		return r
	}
	return workload.RuleKnee
}

func (t scenarioTarget) next(name string) (workload.Workload, error) {
	names := t.cat.Names()
	next := names[0]
	for i, n := range names {
		if n == name {
			next = names[(i+1)%len(names)]
		}
	}
	return t.cat.New(next, t.cfg)
}

func (t scenarioTarget) again(name string) (workload.Workload, error) {
	return t.cat.New(name, t.cfg)
}
