package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/pool"
	"github.com/offtop/offtop/internal/probe"
)

// BenchmarkSample is what one of offtop's samples costs the engine: the
// reads session's sampler makes every --interval (pool.Stats and
// pool.Utilization against the previous Stats, the Loop's Stats, the
// Loop-delay and scheduler probes' Stats), beside live probes at offtop's
// 10ms resolution, one resolution apart (so the probes' histograms change
// between samples, as they do paused) and a pool of N workers that ran 1000 tasks before the
// clock starts. Rows: workers 1, 8, 64, 256 at the default 5s window, and
// windows 5s, 30s, 5m at 8 workers. Not the session's own formatting, nor
// the scenario's Status, nor the TUI's redraw.
func BenchmarkSample(b *testing.B) {
	row := func(workers int, window time.Duration) {
		b.Run(fmt.Sprintf("workers-%d/window-%v", workers, window), func(b *testing.B) {
			loop := probe.NewLoop()
			defer loop.Close()
			lag := probe.StartLagProbe(loop.Post, probe.DefaultResolution, window)
			defer lag.Stop()
			sched := probe.StartSchedProbe(probe.DefaultResolution, window)
			defer sched.Stop()
			p, err := pool.New(pool.Options{Size: workers, Window: window})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			for range 1000 {
				if err := p.Submit(func() {}, nil); err != nil {
					b.Fatal(err)
				}
			}
			for p.Counts().Completed < 1000 {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond) // a few probe samples
			prev := p.Stats()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				// One probe period between samples: each read finds a
				// new value in the probes' histograms, never a kept read.
				b.StopTimer()
				time.Sleep(probe.DefaultResolution)
				b.StartTimer()
				cur := p.Stats()
				_, _ = pool.Utilization(prev, cur)
				_ = loop.Stats()
				_ = lag.Stats()
				_ = sched.Stats()
				prev = cur
			}
		})
	}
	for _, w := range []int{1, 8, 64, 256} {
		row(w, probe.DefaultWindow)
	}
	for _, win := range []time.Duration{30 * time.Second, 5 * time.Minute} {
		row(8, win)
	}
}
