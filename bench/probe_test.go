package bench

import (
	"crypto/sha256"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"

	"github.com/offtop/offtop/internal/probe"
	"github.com/offtop/offtop/latency"
	"github.com/offtop/offtop/looplag"
	"github.com/offtop/offtop/pool"
)

const (
	// probeWorkers is the pool size under test: as many workers as the
	// 2-core machine the figures are meant for has cores.
	probeWorkers = 2
	// taskCPU is the CPU time one task takes on an uncontended core.
	taskCPU = time.Millisecond
	// probeResolution is the Loop-delay probe's period, offtop's default.
	probeResolution = looplag.DefaultResolution
)

// blockSize is the size of the buffer one SHA-256 step hashes.
const blockSize = 1024

// sink keeps the hashing from being optimized away.
var sink atomic.Uint32

// burn hashes a 1 KiB buffer n times, each time over the previous digest,
// so no step can be skipped, and returns a byte of the last digest.
func burn(n int) byte {
	var buf [blockSize]byte
	for i := 0; i < n; i++ {
		sum := sha256.Sum256(buf[:])
		copy(buf[:], sum[:])
	}
	return buf[0]
}

// blocksPerTask is how many burn steps take taskCPU: calibrated once per
// process, before any pool or probe starts, from the fastest of several
// timed runs (the least disturbed by other load on the machine).
var blocksPerTask = sync.OnceValue(func() int {
	const n = 1000
	burn(n) // warm up
	best := time.Duration(1 << 62)
	for range 9 {
		start := time.Now()
		sink.Add(uint32(burn(n)))
		best = min(best, time.Since(start))
	}
	return max(1, int(int64(taskCPU)*n/int64(best)))
})

// BenchmarkProbeUnderLoad measures offtop's Loop-delay probe (a probe.Loop
// with probe.StartLagProbe(loop.Post, 10ms, 5s), as offtop runs it) while
// one submitter goroutine runs b.N tasks of 1 ms CPU each through a pool of
// 2 workers and waits for all of them. A task is a calibrated number of
// SHA-256 steps over a 1 KiB buffer (blocksPerTask: 1 ms on an uncontended
// core, reported as blocks/task): a fixed amount of work whatever the
// scheduling, unlike a spin until 1 ms of wall time has passed, which does
// less work when the task is descheduled.
//
// The submitter is the benchmark goroutine, not the Loop: the Loop runs
// only the probe's callbacks, so the probe shows how the pool's workers and
// hand-off take the machine's Ps away from the probe goroutine and the
// Loop. The submitters differ as the pools do: offtop's Submit and pond's
// (default unbounded queue) never block, so the submitter queues all b.N
// tasks at once and the workers drain the queue; ants' Submit blocks while
// both workers are busy, and so does a send on the unbuffered channel.
//
// On Linux the probe goroutine waits on a timerfd, so it becomes runnable
// only when some thread polls the network poller: a P that finds no other
// work (findRunnable), or sysmon, at most every 10 ms, which puts it on the
// global run queue, where it waits for a P to reschedule (at worst the
// 10 ms preemption of a worker). A pool whose workers never run out of
// local work starves it as bare spinners do.
//
// Baselines: idle (the Loop and probe alone, for b.N x 0.5 ms, the ideal
// time of b.N tasks on 2 workers) and spin (2 bare goroutines running
// b.N/2 tasks each back to back, no pool and no hand-off).
//
// The probe is Reset right before the clock starts; the metrics are its
// since-Reset histograms at the end: corrected (coordinated omission)
// p50-ms, p99-ms and max-ms, raw-p99-ms, samples (probe samples actually
// taken, the raw count) and missed (due times skipped behind a late
// sample). ns/op is the wall time per task.
func BenchmarkProbeUnderLoad(b *testing.B) {
	b.Run("idle", func(b *testing.B) {
		probeUnderLoad(b, func(func()) (func(int), func()) {
			return func(n int) { time.Sleep(time.Duration(n) * taskCPU / probeWorkers) }, func() {}
		})
	})
	b.Run(fmt.Sprintf("spin-%dgoroutines", probeWorkers), func(b *testing.B) {
		probeUnderLoad(b, func(task func()) (func(int), func()) {
			return func(n int) {
				var wg sync.WaitGroup
				for i := range probeWorkers {
					k := n / probeWorkers
					if i < n%probeWorkers {
						k++
					}
					wg.Go(func() {
						for range k {
							task()
						}
					})
				}
				wg.Wait()
			}, func() {}
		})
	})
	b.Run(name("offtop", probeWorkers), func(b *testing.B) {
		probeUnderLoad(b, offtopPool(b, probeWorkers, false))
	})
	b.Run(name("offtop-priority", probeWorkers), func(b *testing.B) {
		probeUnderLoad(b, offtopPool(b, probeWorkers, true))
	})
	b.Run(name("chan", probeWorkers), func(b *testing.B) {
		probeUnderLoad(b, func(task func()) (func(int), func()) {
			ch := make(chan func())
			var wg, workers sync.WaitGroup
			for range probeWorkers {
				workers.Go(func() {
					for fn := range ch {
						fn()
						wg.Done()
					}
				})
			}
			return func(n int) {
					wg.Add(n)
					for range n {
						ch <- task
					}
					wg.Wait()
				}, func() {
					close(ch)
					workers.Wait()
				}
		})
	})
	b.Run(name("ants", probeWorkers), func(b *testing.B) { probeUnderLoad(b, antsPool(b, probeWorkers)) })
	b.Run(name("pond", probeWorkers), func(b *testing.B) { probeUnderLoad(b, pondPool(probeWorkers)) })
	// Workers = 2x cores: the same tasks, twice the workers.
	w2 := 2 * runtime.NumCPU()
	b.Run(name("offtop", w2), func(b *testing.B) { probeUnderLoad(b, offtopPool(b, w2, false)) })
	b.Run(name("offtop-priority", w2), func(b *testing.B) { probeUnderLoad(b, offtopPool(b, w2, true)) })
	b.Run(name("ants", w2), func(b *testing.B) { probeUnderLoad(b, antsPool(b, w2)) })
	b.Run(name("pond", w2), func(b *testing.B) { probeUnderLoad(b, pondPool(w2)) })
}

// setupFunc is probeUnderLoad's setup: given the task, run (n tasks, back
// when all have run) and stop.
type setupFunc = func(task func()) (run func(n int), stop func())

// offtopPool is offtop's pool of n workers, with priority workers
// (pool.Options.Priority) or without; Submit never blocks.
func offtopPool(b *testing.B, n int, priority bool) setupFunc {
	return func(task func()) (func(int), func()) {
		p, err := pool.New(pool.Options{Size: n, Priority: priority})
		if err != nil {
			b.Skip(err) // no priority workers on this OS
		}
		return func(n int) {
			var wg sync.WaitGroup
			done := func(error) { wg.Done() }
			wg.Add(n)
			for range n {
				if err := p.Submit(task, done); err != nil {
					b.Fatal(err)
				}
			}
			wg.Wait()
		}, p.Close
	}
}

// antsPool is ants' pool of n workers; Submit blocks while all are busy.
func antsPool(b *testing.B, n int) setupFunc {
	return func(task func()) (func(int), func()) {
		p, err := ants.NewPool(n)
		if err != nil {
			b.Fatal(err)
		}
		return func(n int) {
			var wg sync.WaitGroup
			fn := func() { task(); wg.Done() }
			wg.Add(n)
			for range n {
				if err := p.Submit(fn); err != nil {
					b.Fatal(err)
				}
			}
			wg.Wait()
		}, p.Release
	}
}

// pondPool is pond's pool of n workers, its default unbounded queue.
func pondPool(n int) setupFunc {
	return func(task func()) (func(int), func()) {
		p := pond.NewPool(n)
		return func(n int) {
			var wg sync.WaitGroup
			fn := func() { task(); wg.Done() }
			wg.Add(n)
			for range n {
				p.Submit(fn)
			}
			wg.Wait()
		}, p.StopAndWait
	}
}

// probeUnderLoad runs one row of BenchmarkProbeUnderLoad. setup gets the
// task and returns run, which runs n tasks and returns when all have run,
// and stop, which releases what setup started.
func probeUnderLoad(b *testing.B, setup setupFunc) {
	k := blocksPerTask()
	task := func() { sink.Add(uint32(burn(k))) }
	run, stop := setup(task)
	defer stop()
	loop := probe.NewLoop()
	defer loop.Close()
	lag := probe.StartLagProbe(loop.Post, probeResolution, latency.DefaultWindow)
	defer lag.Stop()
	time.Sleep(2 * probeResolution) // a first sample or two: the probe is running
	lag.Reset()
	b.ResetTimer()
	run(b.N)
	b.StopTimer()
	s := lag.Stats()
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(s.CorrectedAll.P50), "p50-ms")
	b.ReportMetric(ms(s.CorrectedAll.P99), "p99-ms")
	b.ReportMetric(ms(s.CorrectedAll.Max), "max-ms")
	b.ReportMetric(ms(s.RawAll.P99), "raw-p99-ms")
	b.ReportMetric(float64(s.RawAll.Count), "samples")
	b.ReportMetric(float64(s.Missed), "missed")
	b.ReportMetric(float64(k), "blocks/task")
}
