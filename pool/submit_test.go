package pool

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// A task's returned error is what done gets, as it is; the task counts
// Failed, on the pool and on its worker, and the worker is not replaced.
// The same holds for a task run by Inline at size 0.
func TestSubmitErrCountsFailed(t *testing.T) {
	boom := errors.New("boom")
	var ex manualExec
	p := newPool(t, Options{Size: 1, Inline: ex.Post})
	done := make(chan error, 2)
	report := func(err error) { done <- err }
	if err := p.SubmitErr(func() error { return boom }, report); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, "done", done); err != boom {
		t.Fatalf("done got %v, want the task's own error", err)
	}
	if err := p.SubmitErr(func() error { return nil }, report); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, "done", done); err != nil {
		t.Fatalf("done got %v for a task that returned nil", err)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Failed != 1 || s.Completed != 1 || s.Replaced != 0 || s.Workers[0].Failed != 1 {
		t.Fatalf("failed %d completed %d replaced %d worker failed %d; want 1 1 0 1",
			s.Failed, s.Completed, s.Replaced, s.Workers[0].Failed)
	}

	if err := p.Resize(0); err != nil {
		t.Fatal(err)
	}
	if err := p.SubmitErr(func() error { return boom }, report); err != nil {
		t.Fatal(err)
	}
	for _, fn := range ex.take() {
		fn()
	}
	if err := recv(t, "inline done", done); err != boom {
		t.Fatalf("inline: done got %v, want the task's own error", err)
	}
	if s := p.Stats(); s.Failed != 2 {
		t.Fatalf("inline: failed %d, want 2", s.Failed)
	}
}

// submitWatched submits, with ctx, a task that records that it ran; done
// gets what the task's done got.
func submitWatched(t *testing.T, p *Pool, ctx context.Context) (ran *atomic.Bool, done chan error) {
	t.Helper()
	ran, done = new(atomic.Bool), make(chan error, 1)
	if err := p.SubmitContext(ctx, func(context.Context) error { ran.Store(true); return nil },
		func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	return ran, done
}

// A task whose context ends while it is queued never runs: done gets the
// context's error at once (the worker still busy), it counts Canceled,
// not Queued, and the invariant holds throughout. Once a worker has
// started a task, its context is the task's to heed.
func TestSubmitContextCanceledWhileQueued(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	release, started := make(chan struct{}), make(chan struct{})
	if err := p.Submit(func() { close(started); <-release }, nil); err != nil {
		t.Fatal(err)
	}
	recv(t, "the blocker to start", started)
	ctx, cancel := context.WithCancel(context.Background())
	ran, done := submitWatched(t, p, ctx)
	if s := p.Stats(); s.Queued != 1 {
		t.Fatalf("queued %d, want 1", s.Queued)
	}
	cancel()
	if err := recv(t, "done of the canceled task", done); !errors.Is(err, context.Canceled) {
		t.Fatalf("done got %v, want context.Canceled", err)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Canceled != 1 || s.Queued != 0 || s.Running != 1 {
		t.Fatalf("canceled %d queued %d running %d, want 1 0 1", s.Canceled, s.Queued, s.Running)
	}
	close(release)
	if err := p.Do(func() {}); err != nil {
		t.Fatal(err)
	}
	s = p.Stats()
	checkInvariant(t, s)
	if ran.Load() || s.Submitted != 3 || s.Completed != 2 || s.Canceled != 1 {
		t.Fatalf("ran %v submitted %d completed %d canceled %d; want false 3 2 1", ran.Load(), s.Submitted, s.Completed, s.Canceled)
	}

	// A context done already: refused, nothing counted.
	if err := p.SubmitContext(ctx, func(context.Context) error { return nil }, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("SubmitContext with a done context = %v", err)
	}
	if s := p.Stats(); s.Submitted != 3 {
		t.Fatalf("submitted %d after a refused SubmitContext, want 3", s.Submitted)
	}
}

// At size 0 a task handed to Inline and not started is canceled alike:
// the wrapper Inline runs later does nothing.
func TestSubmitContextCanceledInline(t *testing.T) {
	var ex manualExec
	p := newPool(t, Options{Inline: ex.Post})
	ctx, cancel := context.WithCancel(context.Background())
	ran, done := submitWatched(t, p, ctx)
	cancel()
	if err := recv(t, "done", done); !errors.Is(err, context.Canceled) {
		t.Fatalf("done got %v", err)
	}
	for _, fn := range ex.take() {
		fn()
	}
	s := p.Stats()
	checkInvariant(t, s)
	if ran.Load() || s.Canceled != 1 || s.Queued != 0 || s.Completed != 0 {
		t.Fatalf("ran %v canceled %d queued %d completed %d", ran.Load(), s.Canceled, s.Queued, s.Completed)
	}
}

// DoContext returns the task's error, and the context's when it ends the
// wait before a worker starts the task.
func TestDoContext(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	boom := errors.New("boom")
	if err := p.DoContext(context.Background(), func(context.Context) error { return boom }); err != boom {
		t.Fatalf("DoContext = %v, want the task's error", err)
	}
	release, started := make(chan struct{}), make(chan struct{})
	if err := p.Submit(func() { close(started); <-release }, nil); err != nil {
		t.Fatal(err)
	}
	defer close(release)
	recv(t, "the blocker to start", started)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() { got <- p.DoContext(ctx, func(context.Context) error { return nil }) }()
	waitUntil(t, "the task queued", func() bool { return p.Counts().Queued == 1 })
	cancel()
	if err := recv(t, "DoContext to return", got); !errors.Is(err, context.Canceled) {
		t.Fatalf("DoContext = %v, want context.Canceled", err)
	}
	if c := p.Counts(); c.Canceled != 1 || c.Failed != 1 {
		t.Fatalf("canceled %d failed %d, want 1 1", c.Canceled, c.Failed)
	}
}

// Contexts ending at random while tasks queue, run and the pool resizes
// (to 0 with Inline among the sizes): every done is called exactly once,
// a canceled task never runs, and the counts add up at every Stats.
func TestSubmitContextStress(t *testing.T) {
	loop := startLoop()
	defer loop.Close()
	p := newPool(t, Options{Size: 2, Inline: loop.Post})
	const n = 2000
	var ran, dones [n]atomic.Int32
	var wg sync.WaitGroup
	wg.Add(n)
	stop := make(chan struct{})
	resized := make(chan struct{})
	go func() {
		defer close(resized)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_ = p.Resize([]int{0, 1, 3, 2}[i%4])
			checkInvariantNoFatal(t, p.Stats())
		}
	}()
	for i := range n {
		ctx, cancel := context.WithCancel(context.Background())
		err := p.SubmitContext(ctx, func(context.Context) error { ran[i].Add(1); return nil }, func(err error) {
			if dones[i].Add(1) == 1 && errors.Is(err, context.Canceled) && ran[i].Load() != 0 {
				t.Errorf("task %d ran and was canceled", i)
			}
			wg.Done()
		})
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			cancel()
		} else {
			defer cancel()
		}
	}
	wg.Wait()
	close(stop)
	<-resized
	for i := range n {
		if d := dones[i].Load(); d != 1 || ran[i].Load() > 1 {
			t.Fatalf("task %d: done called %d times, ran %d times", i, d, ran[i].Load())
		}
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Completed+s.Canceled != n {
		t.Fatalf("completed %d + canceled %d != %d", s.Completed, s.Canceled, n)
	}
}
