package scenarios

import (
	"math"
	"testing"
	"time"
)

// TestSetLoadSaturatesInOneCall: one SetLoad of any size, up to the
// largest int either way, takes a scenario to the end of its scale at
// once (the level MaxLoadSteps presses reach), never past it, never
// wrapped round by an overflow, and returns within the bound: it costs
// no work per step asked.
func TestSetLoadSaturatesInOneCall(t *testing.T) {
	for _, c := range []struct {
		name  string
		new   func() (Scenario, func() float64)
		lo    float64 // the level at the bottom of the scale
		hi    float64 // at the top
		start float64
	}{
		{"count", func() (Scenario, func() float64) {
			s := newCount(Config{})
			return s, func() float64 { return float64(s.jobs.Load()) }
		}, countMinJobs, countMaxJobs, countJobs},
		{"crash", func() (Scenario, func() float64) {
			s := newCrash(Config{})
			return s, s.panicPct
		}, crashShares[0], crashShares[len(crashShares)-1], DefaultCrashPanicPercent},
		{"breakeven", func() (Scenario, func() float64) {
			s := newBreakeven(Config{})
			return s, func() float64 { return float64(breakevenRounds[s.roundsIdx.Load()]) }
		}, float64(breakevenRounds[0]), float64(breakevenRounds[len(breakevenRounds)-1]), -1},
		{"io", func() (Scenario, func() float64) {
			s := newIO(Config{})
			return s, func() float64 { return float64(ioRates[s.rateIdx.Load()]) }
		}, float64(ioRates[0]), float64(ioRates[len(ioRates)-1]), float64(ioRates[ioStartRate])},
		{"login", func() (Scenario, func() float64) {
			s := newLogin(Config{})
			return s, func() float64 { return float64(loginBursts[s.burstIdx.Load()]) }
		}, float64(loginBursts[0]), float64(loginBursts[len(loginBursts)-1]), -1},
		{"stall", func() (Scenario, func() float64) {
			s := newStall(Config{})
			return s, func() float64 { return float64(s.d.Load()) }
		}, float64(10 * time.Millisecond), float64(DefaultStallPeriod), float64(DefaultStallDuration)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.start >= 0 {
				if _, level := c.new(); level() != c.start {
					t.Fatalf("starts at %v, want %v", level(), c.start)
				}
			}
			for _, step := range []struct {
				delta int
				want  float64
			}{{MaxLoadSteps, c.hi}, {math.MaxInt, c.hi}, {math.MaxInt - 1, c.hi}, {999999999999, c.hi},
				{-MaxLoadSteps, c.lo}, {math.MinInt, c.lo}, {math.MinInt + 1, c.lo}, {-999999999999, c.lo}} {
				s, level := c.new()
				done := make(chan struct{})
				go func() { defer close(done); s.SetLoad(step.delta) }()
				select {
				case <-done:
				case <-time.After(8 * time.Second): // a loop per step takes hours
					t.Fatalf("SetLoad(%d) has not returned in 8s", step.delta)
				}
				if got := level(); got != step.want {
					t.Errorf("SetLoad(%d): level %v, want %v", step.delta, got, step.want)
				}
				s.SetLoad(step.delta) // from the end, further the same way: stays
				if got := level(); got != step.want {
					t.Errorf("SetLoad(%d) twice: level %v, want %v", step.delta, got, step.want)
				}
			}
		})
	}
}
