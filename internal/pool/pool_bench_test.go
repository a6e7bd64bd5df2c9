package pool

import (
	"sync"
	"testing"
)

// BenchmarkDispatch measures the end-to-end cost per trivial task: one
// goroutine submits b.N tasks, each task's completion signals a WaitGroup,
// and the clock stops when all have run. chan-unbuffered is the floor: a
// bare unbuffered channel hand-off to 2 goroutines doing the same.
// pool-2workers-Do is the round trip: Do from GOMAXPROCS goroutines, each
// waiting for its task, so every task finds an idle worker; chan-Do is the
// same round trip through a bare unbuffered channel and a reply channel.
func BenchmarkDispatch(b *testing.B) {
	for _, c := range []struct {
		name string
		size int
	}{{"pool-1worker", 1}, {"pool-2workers", 2}, {"pool-8workers", 8}} {
		b.Run(c.name, func(b *testing.B) {
			p, err := New(Options{Size: c.size})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			var wg sync.WaitGroup
			task := func() {}
			done := func(error) { wg.Done() }
			b.ReportAllocs()
			b.ResetTimer()
			wg.Add(b.N)
			for i := 0; i < b.N; i++ {
				if err := p.Submit(task, done); err != nil {
					b.Fatal(err)
				}
			}
			wg.Wait()
		})
	}
	b.Run("chan-unbuffered", func(b *testing.B) {
		ch := make(chan func())
		var wg, workers sync.WaitGroup
		for range 2 {
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
	b.Run("pool-2workers-Do", func(b *testing.B) {
		p, err := New(Options{Size: 2})
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
	b.Run("chan-Do", func(b *testing.B) {
		type req struct {
			fn    func()
			reply chan error
		}
		ch := make(chan req)
		var workers sync.WaitGroup
		for range 2 {
			workers.Add(1)
			go func() {
				defer workers.Done()
				for r := range ch {
					r.fn()
					r.reply <- nil
				}
			}()
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
