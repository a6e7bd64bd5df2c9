//go:build linux

package pool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// threadNice is the calling thread's nice value (getpriority returns
// 20 - nice).
func threadNice(t testing.TB) int {
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	return 20 - prio
}

// nices runs n tasks on p, each blocking until all n have started (so
// each runs on a worker of its own when p has n workers), and returns the
// nice value of the thread each ran on.
func nices(t *testing.T, p *Pool, n int) []int {
	t.Helper()
	out := make([]int, n)
	var started, done sync.WaitGroup
	started.Add(n)
	done.Add(n)
	for i := range n {
		if err := p.Submit(func() {
			out[i] = threadNice(t)
			started.Done()
			started.Wait()
		}, func(error) { done.Done() }); err != nil {
			t.Fatal(err)
		}
	}
	done.Wait()
	return out
}

func TestPriorityWorkersLowerThreadsAndAddProcs(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	p, err := New(Options{Size: 2, Priority: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.Priority() || runtime.GOMAXPROCS(0) != base+2 || p.ExtraProcs() != 2 {
		t.Fatalf("priority %v, GOMAXPROCS %d (base %d), extra %d: want on, base+2, 2", p.Priority(), runtime.GOMAXPROCS(0), base, p.ExtraProcs())
	}
	for _, n := range nices(t, p, 2) {
		if n != 19 {
			t.Fatalf("a priority worker's thread has nice %d, want 19", n)
		}
	}
	if err := p.Resize(3); err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != base+3 {
		t.Fatalf("after Resize(3): GOMAXPROCS %d, want %d", got, base+3)
	}
	for _, n := range nices(t, p, 3) {
		if n != 19 {
			t.Fatalf("after a resize a worker's thread has nice %d, want 19", n)
		}
	}
	if err := p.SetPriority(false); err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != base || p.ExtraProcs() != 0 {
		t.Fatalf("priority off: GOMAXPROCS %d, extra %d; want %d, 0", got, p.ExtraProcs(), base)
	}
	for _, n := range nices(t, p, 3) {
		if n != 0 {
			t.Fatalf("priority off: a task ran at nice %d, want 0", n)
		}
	}
	if err := p.SetPriority(true); err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != base+3 {
		t.Fatalf("priority on again: GOMAXPROCS %d, want %d", got, base+3)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Submitted != 8 || s.Completed != 8 || s.Replaced != 0 {
		t.Fatalf("counts: %+v", s.Counts)
	}
	p.Close()
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("after Close: GOMAXPROCS %d, want %d", got, base)
	}
}

// A lowered thread never goes back to the runtime: after priority workers
// come and go (retired, replaced after a panic, switched off, closed), no
// goroutine runs at nice 19.
func TestPriorityLeavesNoLoweredThread(t *testing.T) {
	p, err := New(Options{Size: 4, Priority: true})
	if err != nil {
		t.Fatal(err)
	}
	nices(t, p, 4)
	if err := p.Do(func() { panic("boom") }); err == nil {
		t.Fatal("a panicking task reported no error")
	}
	if err := p.Resize(1); err != nil {
		t.Fatal(err)
	}
	if err := p.Resize(4); err != nil {
		t.Fatal(err)
	}
	nices(t, p, 4)
	if err := p.SetPriority(false); err != nil {
		t.Fatal(err)
	}
	nices(t, p, 4)
	if err := p.SetPriority(true); err != nil {
		t.Fatal(err)
	}
	nices(t, p, 4)
	p.Close()
	// Goroutines blocked in syscalls make the runtime hand their Ps to
	// other threads, the idle ones first: any lowered thread left would
	// run some of them.
	var low atomic.Int64
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range 20 {
				if threadNice(t) != 0 {
					low.Add(1)
				}
				ts := unix.Timespec{Nsec: 200_000}
				unix.Nanosleep(&ts, nil)
			}
		})
	}
	wg.Wait()
	if n := low.Load(); n > 0 {
		t.Fatalf("%d checks ran on a thread at a lowered priority after the pool closed", n)
	}
}

// Toggling priority and resizing while tasks (some panicking) are
// submitted keeps every count; run with -race.
func TestPriorityToggleUnderLoad(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	p, err := New(Options{Size: 2, Priority: true})
	if err != nil {
		t.Fatal(err)
	}
	const n = 4000
	var wg sync.WaitGroup
	var ran atomic.Int64
	wg.Add(n)
	stop := make(chan struct{})
	toggled := make(chan int)
	go func() {
		k := 0
		for {
			select {
			case <-stop:
				toggled <- k
				return
			default:
			}
			if err := p.SetPriority(k%2 == 1); err != nil {
				t.Error(err)
			}
			if err := p.Resize(1 + k%4); err != nil {
				t.Error(err)
			}
			checkInvariant(t, p.Stats())
			k++
			runtime.Gosched()
		}
	}()
	for i := range n {
		fn := func() { ran.Add(1) }
		if i%50 == 49 {
			fn = func() { ran.Add(1); panic("boom") }
		}
		if err := p.Submit(fn, func(error) { wg.Done() }); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(stop)
	k := <-toggled
	s := p.Stats()
	checkInvariant(t, s)
	if s.Submitted != n || s.Completed != n-n/50 || s.Failed != n/50 || ran.Load() != n {
		t.Fatalf("counts %+v, ran %d", s.Counts, ran.Load())
	}
	p.Close()
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("after Close: GOMAXPROCS %d, want %d", got, base)
	}
	t.Logf("%d toggles and resizes during %d tasks", k, n)
}
