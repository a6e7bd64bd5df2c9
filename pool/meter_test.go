package pool_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/offtop/offtop/pool"
)

// chanPool is a pool of the user's own: n goroutines reading a channel.
type chanPool struct {
	tasks chan func()
	wg    sync.WaitGroup
}

func newChanPool(n int) *chanPool {
	p := &chanPool{tasks: make(chan func(), 64)}
	for range n {
		p.wg.Go(func() {
			for t := range p.tasks {
				func() {
					defer func() { recover() }() // this pool survives a panicking task
					t()
				}()
			}
		})
	}
	return p
}

func (p *chanPool) close() { close(p.tasks); p.wg.Wait() }

func TestMeterAccountsAForeignPool(t *testing.T) {
	cp := newChanPool(2)
	m := pool.NewMeter(pool.MeterOptions{Size: func() int { return 2 }})
	var wg sync.WaitGroup
	// Tasks 0 and 1 wait for each other, so both places are busy at
	// once whatever the scheduler does (one goroutine may otherwise run
	// all 20 tasks, and place 1 is never used).
	var both sync.WaitGroup
	both.Add(2)
	for i := range 20 {
		wg.Add(1)
		cp.tasks <- m.Wrap(func() {
			defer wg.Done()
			if i < 2 {
				both.Done()
				both.Wait()
			}
			if i == 7 {
				panic("task 7")
			}
			for t := time.Now(); time.Since(t) < time.Millisecond; {
			}
		})
	}
	wg.Wait()
	cp.close()
	s := m.Stats()
	if s.Submitted != 20 || s.Completed != 19 || s.Failed != 1 || s.Running != 0 || s.Queued != 0 {
		t.Fatalf("counts %+v, want 20 submitted, 19 completed, 1 failed", s)
	}
	if len(s.Workers) != 2 {
		t.Fatalf("%d places, want 2 (the size)", len(s.Workers))
	}
	var done int64
	for _, w := range s.Workers {
		done += w.Completed + w.Failed
		if w.Busy <= 0 {
			t.Errorf("place %d never busy", w.Slot)
		}
	}
	if done != 20 {
		t.Fatalf("places ran %d tasks, want 20", done)
	}
	if s.RunAll.Count != 20 || s.RunAll.P50 < time.Millisecond/2 {
		t.Fatalf("run latency %+v, want 20 of about 1ms", s.RunAll)
	}
	if err := m.Resize(3); !errors.Is(err, pool.ErrNotResizable) {
		t.Fatalf("Resize without MeterOptions.Resize: %v", err)
	}
}

func TestMeterSubmitRefused(t *testing.T) {
	m := pool.NewMeter(pool.MeterOptions{})
	full := errors.New("full")
	if err := m.Submit(func(func()) error { return full }, func() {}); err != full {
		t.Fatal(err)
	}
	if s := m.Stats(); s.Submitted != 0 || s.Rejected != 1 || s.Queued != 0 {
		t.Fatalf("a refused task: %+v", s)
	}
}
