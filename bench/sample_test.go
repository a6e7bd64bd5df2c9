package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/offtop/offtop/bench/internal/engine"
	"github.com/offtop/offtop/latency"
	"github.com/offtop/offtop/looplag"
)

// BenchmarkSample is what one of offtop's samples costs the engine: the
// reads session's sampler makes every --interval (engine.Sample: pool.Stats
// and pool.Utilization against the previous Stats, the Loop's Stats, the
// Loop-delay and scheduler probes' Stats), beside live probes at offtop's
// 10ms resolution, one resolution apart (so the probes' histograms change
// between samples, as they do paused) and a pool of N workers that ran 1000 tasks before the
// clock starts. Rows: workers 1, 8, 64, 256 at the default 5s window, and
// windows 5s, 30s, 5m at 8 workers. Not the session's own formatting, nor
// the scenario's Status, nor the TUI's redraw.
func BenchmarkSample(b *testing.B) {
	row := func(workers int, window time.Duration) {
		b.Run(fmt.Sprintf("workers-%d/window-%v", workers, window), func(b *testing.B) {
			e, err := engine.Start(workers, window)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			for range 1000 {
				if err := e.Pool.Submit(func() {}, nil); err != nil {
					b.Fatal(err)
				}
			}
			for e.Pool.Counts().Completed < 1000 {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond) // a few probe samples
			e.Sample()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				// One probe period between samples: each read finds a
				// new value in the probes' histograms, never a kept read.
				b.StopTimer()
				time.Sleep(looplag.DefaultResolution)
				b.StartTimer()
				e.Sample()
			}
		})
	}
	for _, w := range []int{1, 8, 64, 256} {
		row(w, latency.DefaultWindow)
	}
	for _, win := range []time.Duration{30 * time.Second, 5 * time.Minute} {
		row(8, win)
	}
}
