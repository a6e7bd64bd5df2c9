// Package bench compares offtop's worker pool (package pool) with a
// bare unbuffered channel, github.com/panjf2000/ants/v2 and
// github.com/alitto/pond/v2, in one `go test -bench` run:
//
//   - BenchmarkDispatch: the cost of dispatching a trivial task (one
//     submitter, each completion signals a WaitGroup, the clock stops when
//     all b.N have run: dispatchN), at 1, 2 and 8 workers; "untimed" is
//     offtop's pool on a clock that never moves (Options.Now), so the
//     difference from "offtop" is the clock reads that time each task.
//   - BenchmarkRoundTrip: the synchronous round trip, offtop's Do beside
//     a bare channel and a reply channel.
//   - BenchmarkSample (sample_test.go): what one sample's reads cost the
//     engine, at workers 1..256 and windows 5s..5m.
//   - BenchmarkProbeUnderLoad (probe_test.go): offtop's Loop-delay probe
//     while each pool runs 1 ms CPU tasks at 2 workers.
//
// bench/run runs both and renders BENCHMARKS.md.
package bench

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"

	"github.com/offtop/offtop/pool"
)

var sizes = []int{1, 2, 8}

func name(kind string, n int) string {
	if n == 1 {
		return fmt.Sprintf("%s-1worker", kind)
	}
	return fmt.Sprintf("%s-%dworkers", kind, n)
}

// dispatchN is the shape every row shares: submit b.N trivial tasks, each
// of which signals wg when it has run, and stop the clock when all have.
// submit is called the same way for every implementation, so the indirect
// call it costs (a few ns) is the same in every row.
func dispatchN(b *testing.B, wg *sync.WaitGroup, submit func() error) {
	b.ReportAllocs()
	b.ResetTimer()
	wg.Add(b.N)
	for i := 0; i < b.N; i++ {
		if err := submit(); err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
	b.StopTimer()
}

// submitN is dispatchN on offtop's pool made with o: the completion is
// signalled by Submit's done callback, which runs on the worker right
// after the task.
func submitN(b *testing.B, o pool.Options) {
	p, err := pool.New(o)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var wg sync.WaitGroup
	task := func() {}
	done := func(error) { wg.Done() }
	dispatchN(b, &wg, func() error { return p.Submit(task, done) })
}

func BenchmarkDispatch(b *testing.B) {
	for _, n := range sizes {
		b.Run(name("offtop", n), func(b *testing.B) { submitN(b, pool.Options{Size: n}) })
	}
	// The same pool on a clock that never moves: what dispatch costs
	// without the three clock reads each task's wait and run take.
	t0 := time.Now()
	for _, n := range sizes {
		b.Run(name("untimed", n), func(b *testing.B) {
			submitN(b, pool.Options{Size: n, Now: func() time.Time { return t0 }})
		})
	}
	for _, n := range sizes {
		b.Run(name("chan", n), func(b *testing.B) {
			ch := make(chan func())
			var wg, workers sync.WaitGroup
			for range n {
				workers.Go(func() {
					for fn := range ch {
						fn()
					}
				})
			}
			task := func() { wg.Done() }
			dispatchN(b, &wg, func() error { ch <- task; return nil })
			close(ch)
			workers.Wait()
		})
	}
	for _, n := range sizes {
		b.Run(name("ants", n), func(b *testing.B) {
			p, err := ants.NewPool(n)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Release()
			var wg sync.WaitGroup
			task := func() { wg.Done() }
			dispatchN(b, &wg, func() error { return p.Submit(task) })
		})
	}
	for _, n := range sizes {
		b.Run(name("pond", n), func(b *testing.B) {
			p := pond.NewPool(n)
			defer p.StopAndWait()
			var wg sync.WaitGroup
			task := func() { wg.Done() }
			dispatchN(b, &wg, func() error { p.Submit(task); return nil })
		})
	}
}

// BenchmarkRoundTrip is the synchronous round trip: GOMAXPROCS goroutines
// each submit a trivial task and wait for its result, so every task finds
// an idle worker (2 workers). offtop: pool.Do; chan: a bare unbuffered
// channel to 2 worker goroutines and a reply channel per call.
func BenchmarkRoundTrip(b *testing.B) {
	b.Run("offtop-Do-2workers", func(b *testing.B) {
		p, err := pool.New(pool.Options{Size: 2})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		task := func() {}
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := p.Do(task); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("chan-2workers", func(b *testing.B) {
		type req struct {
			fn    func()
			reply chan error
		}
		ch := make(chan req)
		var workers sync.WaitGroup
		for range 2 {
			workers.Go(func() {
				for r := range ch {
					r.fn()
					r.reply <- nil
				}
			})
		}
		task := func() {}
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				reply := make(chan error, 1)
				ch <- req{task, reply}
				if err := <-reply; err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.StopTimer()
		close(ch)
		workers.Wait()
	})
}
