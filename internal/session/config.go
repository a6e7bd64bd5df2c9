package session

import (
	"errors"
	"fmt"
	"time"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/sysinfo"
	"github.com/offtop/offtop/internal/workload"
	"github.com/offtop/offtop/latency"
	"github.com/offtop/offtop/looplag"
	"github.com/offtop/offtop/pool"
)

// Defaults of Config's zero fields; the CLI's flags default to these.
const (
	DefaultInterval   = 250 * time.Millisecond
	DefaultResolution = looplag.DefaultResolution
	DefaultWindow     = latency.DefaultWindow
)

// MaxWorkers is the largest pool size an Action may ask for.
const MaxWorkers = pool.MaxSize

// Config describes a run. Zero fields take the defaults above; Workers < 0
// means the suggested size (Suggested: the scenario's own default when it
// has one, workload.Info.Workers).
type Config struct {
	Scenario string // the catalog's Default when empty
	Workers  int
	Interval time.Duration // sampling period
	// PausedInterval, when over Interval, is the sampling period while
	// the load of offtop's own scenario is paused (space, --paused): the
	// TUI's, which draws a paused screen once a second (0: every
	// Interval, as headless's JSON Lines are). Resuming goes back to
	// every Interval from the next due time; the due times skipped while
	// paused do not count in SamplesMissed.
	PausedInterval time.Duration
	Resolution     time.Duration // Loop-delay probe period
	Window         time.Duration // sliding window of percentiles, maxima and rates
	Scale          float64       // work size multiplier; 1 when 0
	MaxQueue       int           // pool queue bound; 0 = unbounded
	// GOMAXPROCS, when > 0, sets GOMAXPROCS at start (clamped to
	// 1..NumCPU) to emulate a smaller machine; Close gives it back to the
	// runtime.
	GOMAXPROCS int
	// NoLoad starts the run paused: the scenario's own load off, as after
	// space, so an outside load generator can drive its server.
	NoLoad bool
	// PerTask starts the run with a goroutine per task instead of the
	// pool's workers (pool.SetPerTask; the u key toggles it).
	PerTask bool
	// Priority starts the run with priority workers (pool.SetPriority;
	// the y key toggles it); New fails where the OS has none.
	Priority bool
	// Paused starts the run paused, as space does at once: the
	// scenario's load off and no size row held until space.
	Paused    bool
	Scenarios workload.Config
	// Catalog is where Scenario and the tab key's next come from; nil is
	// the registered one (workload.Registered: the scenarios', when
	// linked). A Program needs none.
	Catalog workload.Catalog
	// Clock is the time the session's schedules run on: when a sample and
	// a search step are due, a sample's Elapsed and dt, a size row's held
	// time and the windows of its percentiles. It is passed on to the
	// scenarios (Scenarios.Clock, unless set). nil is the wall clock
	// (clock.Real); a test passes a *clock.Fake. The probes and the pool
	// time their work on the real clock, always.
	Clock clock.Clock
	// Machine reads how much CPU the rest of the machine uses (the
	// header's others, each size row's machine_busy); nil is /proc/stat
	// (sysinfo.NewProcStat). A test passes a fake machine.
	Machine sysinfo.MachineReader
	// Program, when not nil, makes the session watch a running program
	// (its pool, its loop) instead of running Scenario; Workers, Scale,
	// MaxQueue, PerTask and Scenarios are then ignored.
	Program *Program
}

// ErrConfig is the error of New for a Config it refuses; a field out of
// its bounds is also a *ConfigError.
var ErrConfig = errors.New("invalid session config")

// Bounds of Config's fields, checked by Validate through CheckSampling,
// CheckScale and CheckWorkers (which the CLI calls for its messages).
const (
	MinInterval   = time.Millisecond       // Interval's least
	MinResolution = 100 * time.Microsecond // Resolution's least
	MaxScale      = 1000                   // Scale's most; above 0
)

// A ConfigError is one Config field out of its bounds. Field is named as
// offtop's flag that sets it: "interval", "window", "scale", "workers".
type ConfigError struct {
	Field string
	Value any // the field's value
	// Range is the bounds Value is out of, as a usage says them:
	// "1ms..", "(0, 1000]"; empty when Than is set.
	Range string
	// Than is the field Value is shorter than ("interval"), and Least
	// that field's value: the shortest Value may be.
	Than  string
	Least time.Duration
}

func (e *ConfigError) Error() string {
	if e.Than != "" {
		return fmt.Sprintf("%s: shorter than %s %v: %v", e.Field, e.Than, e.Least, e.Value)
	}
	return fmt.Sprintf("%s: out of range %s: %v", e.Field, e.Range, e.Value)
}

// Validate checks c as it is, its zero fields included (New gives them
// their defaults first): the first field out of its bounds, as a
// *ConfigError; nil when none.
func (c Config) Validate() error {
	if err := CheckSampling(c.Interval, c.Resolution, c.Window); err != nil {
		return err
	}
	if err := CheckScale(c.Scale); err != nil {
		return err
	}
	return CheckWorkers(c.Workers)
}

// CheckSampling checks Interval (at least MinInterval), Resolution (at
// least MinResolution) and Window (at least Interval).
func CheckSampling(interval, resolution, window time.Duration) error {
	switch {
	case interval < MinInterval:
		return &ConfigError{Field: "interval", Value: interval, Range: fmt.Sprintf("%v..", MinInterval)}
	case resolution < MinResolution:
		return &ConfigError{Field: "resolution", Value: resolution, Range: fmt.Sprintf("%v..", MinResolution)}
	case window < interval:
		return &ConfigError{Field: "window", Value: window, Than: "interval", Least: interval}
	}
	return nil
}

// ScaleRange is Scale's bounds as a usage says them.
var ScaleRange = fmt.Sprintf("(0, %d]", MaxScale)

// CheckScale checks Scale: above 0, at most MaxScale.
func CheckScale(f float64) error {
	if !(f > 0 && f <= MaxScale) { // NaN too
		return &ConfigError{Field: "scale", Value: f, Range: ScaleRange}
	}
	return nil
}

// WorkersRange is a pool size's bounds as a usage says them.
var WorkersRange = fmt.Sprintf("0..%d", MaxWorkers)

// CheckWorkers checks Workers: at most MaxWorkers; below 0 is the
// suggested size.
func CheckWorkers(n int) error {
	if n > MaxWorkers {
		return &ConfigError{Field: "workers", Value: n, Range: WorkersRange}
	}
	return nil
}

// withDefaults is c with its zero fields given their defaults.
func (c Config) withDefaults() Config {
	if c.Interval == 0 {
		c.Interval = DefaultInterval
	}
	if c.Resolution == 0 {
		c.Resolution = DefaultResolution
	}
	if c.Window == 0 {
		c.Window = DefaultWindow
	}
	if c.Scale == 0 {
		c.Scale = 1
	}
	c.Clock = clock.Or(c.Clock)
	if c.Scenarios.Clock == nil {
		c.Scenarios.Clock = c.Clock
	}
	return c
}
