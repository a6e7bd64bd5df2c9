// Package engine is offtop's engine as its sampler sees it, for the
// benchmarks: the Loop with its Loop-delay probe, the scheduler probe and a
// pool, and Sample, the reads offtop's sampler makes of them every
// --interval. bench/engine runs it paused beside the floor; BenchmarkSample
// times Sample.
package engine

import (
	"time"

	"github.com/offtop/offtop/internal/probe"
	"github.com/offtop/offtop/looplag"
	"github.com/offtop/offtop/pool"
)

// Engine is a running engine. Its methods are for one goroutine.
type Engine struct {
	Loop  *probe.Loop
	Lag   *probe.LagProbe
	Sched *probe.SchedProbe
	Pool  *pool.Pool
	prev  pool.Stats
}

// Start starts an engine with a pool of workers (0..pool.MaxSize; the
// Loop runs its tasks at 0) and probes at offtop's default resolution,
// with a latency window of window.
func Start(workers int, window time.Duration) (*Engine, error) {
	loop := probe.NewLoop()
	p, err := pool.New(pool.Options{Size: workers, Inline: loop.Post, Window: window})
	if err != nil {
		loop.Close()
		return nil, err
	}
	e := &Engine{
		Loop:  loop,
		Lag:   probe.StartLagProbe(loop.Post, looplag.DefaultResolution, window),
		Sched: probe.StartSchedProbe(looplag.DefaultResolution, window),
		Pool:  p,
	}
	e.prev = p.Stats()
	return e, nil
}

// Sample makes the reads offtop's sampler makes per sample: the pool's
// Stats and Utilization against the previous sample's, the Loop's Stats,
// both probes' Stats.
func (e *Engine) Sample() {
	cur := e.Pool.Stats()
	_, _ = pool.Utilization(e.prev, cur)
	_ = e.Loop.Stats()
	_ = e.Lag.Stats()
	_ = e.Sched.Stats()
	e.prev = cur
}

// Close stops the probes, the pool and the Loop.
func (e *Engine) Close() {
	e.Lag.Stop()
	e.Sched.Stop()
	e.Pool.Close()
	e.Loop.Close()
}
