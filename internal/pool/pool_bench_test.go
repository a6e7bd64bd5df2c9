package pool

import (
	"sync"
	"testing"
)

// BenchmarkDo measures the round trip: Do from GOMAXPROCS goroutines, each
// waiting for its task, so every task finds an idle worker (pool-2workers);
// chan is the same round trip through a bare unbuffered channel and a reply
// channel. The streaming cost (Submit) beside a bare channel, ants and pond
// is BenchmarkDispatch in bench/ (bench/run).
func BenchmarkDo(b *testing.B) {
	b.Run("pool-2workers", func(b *testing.B) {
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
	b.Run("chan", func(b *testing.B) {
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
