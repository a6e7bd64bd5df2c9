// Package scenarios holds offtop's workloads: each reproduces one experiment
// of the write-ups in docs/seeds.md and does its real work (real HTTP over
// loopback, real hashing, real counting), checked against a known answer.
package scenarios

import "github.com/offtop/offtop/internal/workload"

// The session's view of a scenario (package workload), named here as the
// scenarios' code has always named it.
type (
	// Env is what a scenario may use (workload.Env).
	Env = workload.Env
	// Readout is one figure a scenario shows (workload.Readout).
	Readout = workload.Readout
	// Status is what a running scenario reports (workload.Status).
	Status = workload.Status
	// Scenario is one workload (workload.Workload).
	Scenario = workload.Workload
	// Config holds scenario parameters from flags (workload.Config).
	Config = workload.Config
	// HeadlineSpec names a scenario's headline (workload.HeadlineSpec).
	HeadlineSpec = workload.HeadlineSpec
	// Unit is a readout's unit (workload.Unit).
	Unit = workload.Unit
	// Knob is one live setting (workload.Knob).
	Knob = workload.Knob
	// Knobber is a scenario with Knobs (workload.Knobber).
	Knobber = workload.Knobber
	// SizeRule names how the size to pick is found (workload.SizeRule).
	SizeRule = workload.SizeRule
	// SizingSpec is a scenario's sizing metadata (workload.SizingSpec).
	SizingSpec = workload.SizingSpec
)

// The units, the rules and the Loop bound (package workload).
const (
	Count       = workload.Count
	UnitMS      = workload.UnitMS
	UnitSeconds = workload.UnitSeconds
	UnitPerSec  = workload.UnitPerSec
	UnitRPS     = workload.UnitRPS
	UnitPercent = workload.UnitPercent
	UnitBytes   = workload.UnitBytes
	UnitKiB     = workload.UnitKiB

	RuleKnee    = workload.RuleKnee
	RuleLatency = workload.RuleLatency
	RuleLittle  = workload.RuleLittle

	LoopP99BoundMS = workload.LoopP99BoundMS
)

// UnitOf is the unit a readout key names by its suffix (workload.UnitOf).
func UnitOf(key string) Unit { return workload.UnitOf(key) }
