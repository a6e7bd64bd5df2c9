package pool

import (
	"errors"
	"sync"
	"testing"
)

// TestPerTaskGivesEveryTaskAGoroutine: with per-task on, 20 blocking tasks
// on a pool of 1 with a queue bound of 2 all run at once (no queue, no
// bound), the counts add up at every Stats while they run, panics count as
// failed, and after release every task is completed or failed exactly
// once. Turning the mode off sends tasks to the worker again.
func TestPerTaskGivesEveryTaskAGoroutine(t *testing.T) {
	p, err := New(Options{Size: 1, MaxQueue: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sw := watchStats(t, p)
	p.SetPerTask(true)
	if !p.PerTask() {
		t.Fatal("PerTask() false after SetPerTask(true)")
	}
	release := make(chan struct{})
	var started, done sync.WaitGroup
	var mu sync.Mutex
	errs := map[string]int{}
	const n = 20
	for i := range n {
		started.Add(1)
		done.Add(1)
		err := p.Submit(func() {
			started.Done()
			<-release
			if i%5 == 0 {
				panic("boom")
			}
		}, func(err error) {
			mu.Lock()
			errs[errText(err)]++
			mu.Unlock()
			done.Done()
		})
		if err != nil {
			t.Fatalf("submit %d: %v", i, err)
		}
	}
	started.Wait() // all 20 running at once on a pool of 1
	s := p.Stats()
	checkInvariant(t, s)
	if s.Running != n || s.Queued != 0 || s.Rejected != 0 {
		t.Errorf("while blocked: running %d queued %d rejected %d, want %d 0 0", s.Running, s.Queued, s.Rejected, n)
	}
	close(release)
	done.Wait()
	if errs["nil"] != 16 || errs["panic"] != 4 {
		t.Errorf("outcomes %v, want 16 nil and 4 panics", errs)
	}
	p.SetPerTask(false)
	if err := p.Do(func() {}); err != nil {
		t.Fatal(err)
	}
	sw.Stop()
	s = p.Stats()
	checkInvariant(t, s)
	if s.Submitted != n+1 || s.Completed != 17 || s.Failed != 4 || s.Workers[0].Completed != 1 {
		t.Errorf("after: submitted %d completed %d failed %d, worker completed %d", s.Submitted, s.Completed, s.Failed, s.Workers[0].Completed)
	}
}

// TestPerTaskCloseWaitsAndRefuses: Close waits for a running per-task
// task, and Submit after Close returns ErrClosed without counting.
func TestPerTaskCloseWaitsAndRefuses(t *testing.T) {
	p, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.SetPerTask(true)
	release, running := make(chan struct{}), make(chan struct{})
	var finished bool
	if err := p.Submit(func() { close(running); <-release; finished = true }, nil); err != nil {
		t.Fatal(err)
	}
	recv(t, "the task to start", running)
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a per-task task ran")
	default:
	}
	close(release)
	recv(t, "Close", closed)
	if !finished {
		t.Error("Close returned before the task finished")
	}
	if err := p.Submit(func() {}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit after Close: %v", err)
	}
	if c := p.Counts(); c.Submitted != 1 || c.Completed != 1 {
		t.Errorf("counts %+v", c)
	}
}

func errText(err error) string {
	var pe *PanicError
	switch {
	case err == nil:
		return "nil"
	case errors.As(err, &pe):
		return "panic"
	}
	return err.Error()
}
