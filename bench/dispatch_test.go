// Package bench compares the dispatch cost of third-party Go worker pools
// with a bare unbuffered channel, in the same shape as offtop's
// internal/pool BenchmarkDispatch: one submitter, a trivial task, and each
// completion signals a WaitGroup; the clock stops when all b.N have run.
// offtop's own pool cannot be imported from here (it is internal to the
// parent module), so bench/run runs the parent's BenchmarkDispatch instead.
package bench

import (
	"fmt"
	"sync"
	"testing"

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"
)

var sizes = []int{1, 2, 8}

func name(kind string, n int) string {
	if n == 1 {
		return fmt.Sprintf("%s-1worker", kind)
	}
	return fmt.Sprintf("%s-%dworkers", kind, n)
}

func BenchmarkDispatch(b *testing.B) {
	for _, n := range sizes {
		b.Run(name("chan", n), func(b *testing.B) {
			ch := make(chan func())
			var wg, workers sync.WaitGroup
			for range n {
				workers.Add(1)
				go func() {
					defer workers.Done()
					for fn := range ch {
						fn()
						wg.Done()
					}
				}()
			}
			task := func() {}
			b.ReportAllocs()
			b.ResetTimer()
			wg.Add(b.N)
			for i := 0; i < b.N; i++ {
				ch <- task
			}
			wg.Wait()
			b.StopTimer()
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
			b.ReportAllocs()
			b.ResetTimer()
			wg.Add(b.N)
			for i := 0; i < b.N; i++ {
				if err := p.Submit(task); err != nil {
					b.Fatal(err)
				}
			}
			wg.Wait()
		})
	}
	for _, n := range sizes {
		b.Run(name("pond", n), func(b *testing.B) {
			p := pond.NewPool(n)
			defer p.StopAndWait()
			var wg sync.WaitGroup
			task := func() { wg.Done() }
			b.ReportAllocs()
			b.ResetTimer()
			wg.Add(b.N)
			for i := 0; i < b.N; i++ {
				p.Submit(task)
			}
			wg.Wait()
		})
	}
}
