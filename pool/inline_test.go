package pool

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// At size 0 a task with a timeout hangs on the Inline executor with 20
// tasks queued behind it there: past its timeout it is counted TimedOut
// (done gets ErrTimeout) and the executor Stuck; a resize to 4 moves the
// 20 to the workers, which run them while the executor still hangs; the
// hang's return counts nothing more and ends Stuck; the wrappers the
// executor still holds run nothing, not even the recycled tasks of later
// inline submissions; every Stats on the way adds up.
func TestInlineHangIsStuckAndQueuedMoveOnResize(t *testing.T) {
	loop := startLoop()
	defer loop.Close()
	p := newPool(t, Options{Inline: loop.Post})
	sw := watchStats(t, p)
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free() // on a failure too, before the executor closes
	started := make(chan struct{})
	hangErr := make(chan error, 2)
	if err := p.SubmitTimeout(func() { close(started); <-release }, 50e6, func(err error) { hangErr <- err }); err != nil {
		t.Fatal(err)
	}
	recv(t, "the hang to start on the executor", started)
	const n = 20
	var ran [2 * n]atomic.Int32
	var wg sync.WaitGroup
	submit := func(i int) {
		wg.Add(1)
		err := p.SubmitTimeout(func() { ran[i].Add(1) }, 1e12, func(err error) {
			if err != nil {
				t.Errorf("task %d: done(%v)", i, err)
			}
			wg.Done()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		submit(i)
	}
	if s := p.Stats(); s.Running != 1 || s.Queued != n || s.Stuck != 0 {
		t.Fatalf("before the timeout: running %d queued %d stuck %d, want 1, %d, 0", s.Running, s.Queued, s.Stuck, n)
	}
	if err := recv(t, "the hang's timeout", hangErr); !errors.Is(err, ErrTimeout) {
		t.Fatalf("hang: done(%v), want ErrTimeout", err)
	}
	if s := p.Stats(); s.TimedOut != 1 || s.Stuck != 1 || s.Running != 0 || s.Queued != n {
		t.Fatalf("past the timeout: timed out %d stuck %d running %d queued %d, want 1, 1, 0, %d", s.TimedOut, s.Stuck, s.Running, s.Queued, n)
	}
	if err := p.Resize(4); err != nil {
		t.Fatal(err)
	}
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	recv(t, "the queued tasks to run on the workers", all)
	if s := p.Stats(); s.Completed != n || s.Queued != 0 || s.Running != 0 || s.Stuck != 1 {
		t.Fatalf("after the resize: completed %d queued %d running %d stuck %d, want %d, 0, 0, 1", s.Completed, s.Queued, s.Running, s.Stuck, n)
	}
	// Back to 0 with more tasks, which may reuse the 20 moved ones: they
	// queue on the executor behind the stale wrappers.
	if err := p.Resize(0); err != nil {
		t.Fatal(err)
	}
	for i := n; i < 2*n; i++ {
		submit(i)
	}
	free()
	wg.Wait()
	select {
	case err := <-hangErr:
		t.Fatalf("the hang's done called again: %v", err)
	default:
	}
	checks := sw.Stop()
	s := p.Stats()
	checkInvariant(t, s)
	if s.Completed != 2*n || s.TimedOut != 1 || s.Stuck != 0 || s.Queued != 0 || s.Running != 0 || s.Failed != 0 {
		t.Fatalf("at the end: %+v", s.Counts)
	}
	for i := range ran {
		if got := ran[i].Load(); got != 1 {
			t.Errorf("task %d ran %d times", i, got)
		}
	}
	t.Logf("%d Stats checked", checks)
}

// A resize from 0 runs the tasks Inline has not started on the workers,
// in the order submitted; the wrappers Inline holds then run nothing.
func TestResizeFromZeroKeepsOrder(t *testing.T) {
	var ex manualExec
	p := newPool(t, Options{Inline: ex.Post})
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		if err := p.Submit(func() { mu.Lock(); order = append(order, i); mu.Unlock() }, func(error) { wg.Done() }); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Resize(1); err != nil {
		t.Fatal(err)
	}
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	recv(t, "the tasks to run on the worker", all)
	for _, fn := range ex.take() {
		fn() // moved: nothing runs
	}
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 5 {
		t.Fatalf("order %v", order)
	}
	for i, v := range order {
		if v != i {
			t.Fatalf("order %v", order)
		}
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Completed != 5 || s.Queued != 0 {
		t.Fatalf("%+v", s.Counts)
	}
}
