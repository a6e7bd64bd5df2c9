package pool

import (
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// statsWatcher takes Stats in a loop until stopped, checking the invariant
// at every one, and reports the largest Abandoned it saw.
type statsWatcher struct {
	once sync.Once
	stop chan struct{}
	done chan struct{}
	n    atomic.Int64
	maxA atomic.Int64
}

func watchStats(t *testing.T, p *Pool) *statsWatcher {
	t.Helper()
	sw := &statsWatcher{stop: make(chan struct{}), done: make(chan struct{})}
	t.Cleanup(func() { sw.Stop() }) // a failed test's watcher ends with it, not in the next test's leak check
	go func() {
		defer close(sw.done)
		for {
			select {
			case <-sw.stop:
				return
			default:
			}
			s := p.Stats()
			checkInvariantNoFatal(t, s)
			if s.Abandoned > sw.maxA.Load() {
				sw.maxA.Store(s.Abandoned)
			}
			sw.n.Add(1)
			time.Sleep(100 * time.Microsecond) // pacing, not a timing assertion
		}
	}()
	return sw
}

// Stop ends the watcher and returns how many Stats it checked.
func (sw *statsWatcher) Stop() int64 {
	sw.once.Do(func() { close(sw.stop) })
	<-sw.done
	return sw.n.Load()
}

// checkInvariantNoFatal is checkInvariant for goroutines other than the
// test's (t.Fatal must not be called there).
func checkInvariantNoFatal(t *testing.T, s Stats) {
	t.Helper()
	if s.Submitted != s.Completed+s.Failed+s.TimedOut+s.Canceled+s.Running+s.Queued {
		t.Errorf("invariant broken: submitted %d != completed %d + failed %d + timed out %d + canceled %d + running %d + queued %d",
			s.Submitted, s.Completed, s.Failed, s.TimedOut, s.Canceled, s.Running, s.Queued)
	}
}

// A hung task with a 50ms timeout on a pool of 1: its done gets
// ErrTimeout, it counts TimedOut, the slot gets a fresh worker at once and
// later tasks complete; the stuck goroutine is Abandoned until the test
// releases it, then exits without counting anything again.
func TestTimeoutHungTaskIsAbandonedAndReplaced(t *testing.T) {
	p, err := New(Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	sw := watchStats(t, p)
	release := make(chan struct{})
	returned := make(chan struct{})
	started := make(chan struct{})
	var dones atomic.Int32
	doneErr := make(chan error, 2)
	err = p.SubmitTimeout(func() {
		close(started)
		<-release
		close(returned)
	}, 50*time.Millisecond, func(err error) { dones.Add(1); doneErr <- err })
	if err != nil {
		t.Fatal(err)
	}
	recv(t, "hung task start", started)
	gen0 := p.Stats().Workers[0].gen
	if err := recv(t, "timeout", doneErr); !errors.Is(err, ErrTimeout) {
		t.Fatalf("done(%v), want ErrTimeout", err)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.TimedOut != 1 || s.Abandoned != 1 || s.Replaced != 1 || s.Running != 0 || s.Stuck != 0 || s.Failed != 0 {
		t.Fatalf("after timeout: %+v", s)
	}
	if len(s.Workers) != 1 || s.Workers[0].Slot != 0 || s.Workers[0].Running || s.Workers[0].TimedOut != 1 ||
		s.Workers[0].gen != gen0 {
		t.Fatalf("slot 0 after replacement: %+v (gen before %d)", s.Workers, gen0)
	}
	// The fresh worker runs later tasks while the hung one still blocks.
	for i := 0; i < 20; i++ {
		if err := p.Do(func() {}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-returned:
		t.Fatal("hung task returned before release")
	default:
	}
	s = p.Stats()
	checkInvariant(t, s)
	if s.Completed != 20 || s.Abandoned != 1 || s.Workers[0].Completed != 20 {
		t.Fatalf("later tasks: %+v", s)
	}
	close(release)
	<-returned
	waitUntil(t, "abandoned back to 0", func() bool { return p.Stats().Abandoned == 0 })
	s = p.Stats()
	checkInvariant(t, s)
	if s.Submitted != 21 || s.Completed != 20 || s.TimedOut != 1 || s.Replaced != 1 || s.Running != 0 {
		t.Fatalf("after release: %+v", s)
	}
	if n := dones.Load(); n != 1 {
		t.Fatalf("done called %d times", n)
	}
	if n := sw.Stop(); n == 0 {
		t.Fatal("no Stats taken during the test")
	}
	if err := p.Do(func() {}); err != nil {
		t.Fatal(err)
	}
	p.Close()
	goleak.VerifyNone(t) // the abandoned goroutine is gone too
}

// MaxAbandoned caps the goroutines left running: with 2 abandoned, the
// next task to time out keeps its slot (stuck) and the queue waits behind
// it. Every timed-out task still gets ErrTimeout at its timeout.
func TestTimeoutCapKeepsSlotStuck(t *testing.T) {
	p := newPool(t, Options{Size: 1, MaxAbandoned: 2, TaskTimeout: 30 * time.Millisecond})
	sw := watchStats(t, p)
	const n = 5
	var rel [n]chan struct{}
	errs := make(chan error, n)
	for i := range rel {
		rel[i] = make(chan struct{})
		if err := p.Submit(func() { <-rel[i] }, func(err error) { errs <- err }); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if err := recv(t, "timeout", errs); !errors.Is(err, ErrTimeout) {
			t.Fatalf("done(%v), want ErrTimeout", err)
		}
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.TimedOut != 3 || s.Abandoned != 2 || s.Stuck != 1 || s.Replaced != 2 || s.Queued != 2 || s.Running != 0 {
		t.Fatalf("at the cap: %+v", s)
	}
	if w := s.Workers; len(w) != 1 || !w[0].Stuck || !w[0].Running {
		t.Fatalf("workers at the cap: %+v", w)
	}
	// Goroutines do not grow while the cap holds: nothing more times out
	// until the stuck task returns.
	g := runtime.NumGoroutine()
	time.Sleep(100 * time.Millisecond) // lets any wrongly armed timer fire
	if s2 := p.Stats(); s2.TimedOut != 3 || s2.Abandoned != 2 {
		t.Fatalf("past the cap: %+v", s2)
	}
	if g2 := runtime.NumGoroutine(); g2 > g {
		t.Fatalf("goroutines grew at the cap: %d -> %d", g, g2)
	}
	// The stuck task returns: its worker goes on with task 4, which times
	// out stuck too (still 2 abandoned).
	close(rel[2])
	if err := recv(t, "timeout", errs); !errors.Is(err, ErrTimeout) {
		t.Fatalf("done(%v), want ErrTimeout", err)
	}
	s = p.Stats()
	checkInvariant(t, s)
	if s.TimedOut != 4 || s.Abandoned != 2 || s.Stuck != 1 || s.Queued != 1 {
		t.Fatalf("after the stuck one returned: %+v", s)
	}
	// Release an abandoned one: the cap has room again, but a stuck worker
	// stays stuck until its task returns.
	close(rel[0])
	waitUntil(t, "abandoned 1", func() bool { return p.Stats().Abandoned == 1 })
	close(rel[3])
	if err := recv(t, "timeout", errs); !errors.Is(err, ErrTimeout) {
		t.Fatalf("done(%v), want ErrTimeout", err)
	}
	s = p.Stats()
	checkInvariant(t, s)
	if s.TimedOut != 5 || s.Abandoned != 2 || s.Stuck != 0 || s.Replaced != 3 || s.Queued != 0 {
		t.Fatalf("task 5 abandoned under the cap: %+v", s)
	}
	if sw.maxA.Load() > 2 {
		t.Fatalf("abandoned reached %d over a cap of 2", sw.maxA.Load())
	}
	close(rel[1])
	close(rel[4])
	waitUntil(t, "abandoned 0", func() bool { return p.Stats().Abandoned == 0 })
	sw.Stop()
	if err := p.Do(func() {}); err != nil {
		t.Fatal(err)
	}
	s = p.Stats()
	checkInvariant(t, s)
	if s.Completed != 1 || s.TimedOut != 5 {
		t.Fatalf("end: %+v", s)
	}
	if c := p.Counts(); c != s.Counts {
		t.Fatalf("Counts %+v, Stats %+v on a quiet pool", c, s.Counts)
	}
}

// Options.TaskTimeout applies to Submit and Do; SubmitTimeout with 0 means
// no limit; a task that ends in time is unaffected.
func TestTaskTimeoutOption(t *testing.T) {
	p := newPool(t, Options{Size: 2, TaskTimeout: 40 * time.Millisecond})
	release := make(chan struct{})
	defer close(release)
	if err := p.Do(func() { <-release }); !errors.Is(err, ErrTimeout) {
		t.Fatalf("Do = %v, want ErrTimeout", err)
	}
	if err := p.Do(func() {}); err != nil {
		t.Fatalf("quick task: %v", err)
	}
	slow := make(chan error, 1)
	if err := p.SubmitTimeout(func() { time.Sleep(150 * time.Millisecond) }, 0, func(err error) { slow <- err }); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, "no-limit task", slow); err != nil {
		t.Fatalf("task with no limit: %v", err)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.TimedOut != 1 || s.Completed != 2 {
		t.Fatalf("%+v", s)
	}
}

// Tasks that finish right around their timeout: each is counted exactly
// once, as completed or as timed out, its done is called once, with the
// matching error, and the invariant holds at every Stats on the way.
func TestTimeoutRaceWithReturn(t *testing.T) {
	p := newPool(t, Options{Size: 2, MaxAbandoned: 1000})
	sw := watchStats(t, p)
	const n = 400
	var completed, timedOut atomic.Int64
	var wg sync.WaitGroup
	var ran sync.WaitGroup
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < n; i++ {
		d := time.Duration(r.IntN(2000)) * time.Microsecond
		wg.Add(1)
		ran.Add(1)
		var calls atomic.Int32
		err := p.SubmitTimeout(func() {
			defer ran.Done()
			time.Sleep(d)
		}, time.Millisecond, func(err error) {
			if calls.Add(1) != 1 {
				t.Error("done called twice")
			}
			switch {
			case err == nil:
				completed.Add(1)
			case errors.Is(err, ErrTimeout):
				timedOut.Add(1)
			default:
				t.Errorf("done(%v)", err)
			}
			wg.Done()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	ran.Wait()
	waitUntil(t, "abandoned 0", func() bool { return p.Stats().Abandoned == 0 })
	sw.Stop()
	s := p.Stats()
	checkInvariant(t, s)
	if s.Completed != completed.Load() || s.TimedOut != timedOut.Load() || s.Completed+s.TimedOut != n {
		t.Fatalf("pool %+v; done saw %d completed, %d timed out", s, completed.Load(), timedOut.Load())
	}
	if s.TotalAll.Count != n {
		t.Fatalf("latency recorded %d tasks, want %d", s.TotalAll.Count, n)
	}
	t.Logf("%d completed, %d timed out, %d replaced", s.Completed, s.TimedOut, s.Replaced)
}

// The slot's accounting survives the replacement: the abandoned task
// counts as busy up to its timeout and not after, and the slot keeps its
// gen, so Utilization stays continuous.
func TestTimeoutReplacementKeepsSlotAccounting(t *testing.T) {
	clk := newFakeClock()
	p := newPool(t, Options{Size: 1, Now: clk.Now})
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	done := make(chan error, 1)
	// The timer is real; the clock is not. The timeout is long enough for
	// the test to move the clock first (that takes microseconds).
	if err := p.SubmitTimeout(func() { close(started); <-release }, 300*time.Millisecond, func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	recv(t, "start", started)
	prev := p.Stats()
	clk.Add(time.Second)
	if err := recv(t, "timeout", done); !errors.Is(err, ErrTimeout) {
		t.Fatalf("done(%v)", err)
	}
	cur := p.Stats()
	if w := cur.Workers[0]; w.gen != prev.Workers[0].gen || w.Busy != time.Second || w.Running {
		t.Fatalf("after replacement: %+v, want same gen, busy 1s", w)
	}
	busy, _ := Utilization(prev, cur)
	if busy[0] != 1 {
		t.Fatalf("busy %v over the second the task hung, want 1", busy)
	}
	prev = cur
	clk.Add(time.Second)
	cur = p.Stats()
	if busy, _ := Utilization(prev, cur); busy[0] != 0 {
		t.Fatalf("busy %v while the abandoned task still runs off the slot, want 0", busy)
	}
	if cur.TotalAll.Count != 1 || cur.RunAll.Max < 990*time.Millisecond {
		t.Fatalf("latency of the timed-out task: %+v", cur.RunAll)
	}
}

// A stuck task (no abandoning allowed) that panics when it finally
// returns: its done was already called once, with ErrTimeout; nothing more
// is counted, the goroutine is replaced and the pool goes on.
func TestTimeoutStuckThenPanics(t *testing.T) {
	p := newPool(t, Options{Size: 1, MaxAbandoned: -1})
	release := make(chan struct{})
	var calls atomic.Int32
	errs := make(chan error, 2)
	if err := p.SubmitTimeout(func() { <-release; panic("late") }, 20*time.Millisecond, func(err error) {
		calls.Add(1)
		errs <- err
	}); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, "timeout", errs); !errors.Is(err, ErrTimeout) {
		t.Fatalf("done(%v)", err)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Stuck != 1 || s.Abandoned != 0 || s.Replaced != 0 || !s.Workers[0].Stuck {
		t.Fatalf("stuck: %+v", s)
	}
	next := make(chan error, 1)
	if err := p.Submit(func() {}, func(err error) { next <- err }); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := recv(t, "next task", next); err != nil {
		t.Fatal(err)
	}
	s = p.Stats()
	checkInvariant(t, s)
	if s.Stuck != 0 || s.Failed != 0 || s.TimedOut != 1 || s.Completed != 1 || s.Replaced != 1 || calls.Load() != 1 {
		t.Fatalf("after the late panic: %+v, done called %d times", s, calls.Load())
	}
}

// A retiring worker whose task times out is abandoned without a
// replacement: the slot is freed and the pool keeps its size.
func TestTimeoutWhileRetiring(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	release := make(chan struct{})
	started := make(chan struct{})
	errs := make(chan error, 1)
	if err := p.SubmitTimeout(func() { close(started); <-release }, 30*time.Millisecond, func(err error) { errs <- err }); err != nil {
		t.Fatal(err)
	}
	recv(t, "start", started)
	if err := p.Resize(0); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, "timeout", errs); !errors.Is(err, ErrTimeout) {
		t.Fatalf("done(%v)", err)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if len(s.Workers) != 0 || s.Replaced != 0 || s.Abandoned != 1 || s.Size != 0 {
		t.Fatalf("%+v", s)
	}
	close(release)
	waitUntil(t, "abandoned 0", func() bool { return p.Stats().Abandoned == 0 })
	if err := p.Resize(1); err != nil {
		t.Fatal(err)
	}
	if err := p.Do(func() {}); err != nil {
		t.Fatal(err)
	}
}

// Close does not wait for a stuck task (it abandons it at once), and a
// task that times out while Close waits is abandoned even at the cap.
func TestCloseAbandonsTimedOutTasks(t *testing.T) {
	p, err := New(Options{Size: 2, MaxAbandoned: -1})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	errs := make(chan error, 2)
	started := make(chan struct{}, 2)
	if err := p.SubmitTimeout(func() { started <- struct{}{}; <-release }, 10*time.Millisecond, func(err error) { errs <- err }); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, "timeout", errs); !errors.Is(err, ErrTimeout) {
		t.Fatalf("done(%v)", err)
	}
	if err := p.SubmitTimeout(func() { started <- struct{}{}; <-release }, 100*time.Millisecond, func(err error) { errs <- err }); err != nil {
		t.Fatal(err)
	}
	recv(t, "start", started)
	recv(t, "start", started)
	if s := p.Stats(); s.Stuck != 1 || s.Running != 1 {
		t.Fatalf("before Close: %+v", s)
	}
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	recv(t, "Close with a stuck and a hung task", closed)
	if err := recv(t, "second timeout", errs); !errors.Is(err, ErrTimeout) {
		t.Fatalf("done(%v)", err)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Abandoned != 2 || s.Stuck != 0 || s.TimedOut != 2 || s.Replaced != 0 || len(s.Workers) != 0 {
		t.Fatalf("after Close: %+v", s)
	}
	close(release)
	waitUntil(t, "abandoned 0", func() bool { return p.Stats().Abandoned == 0 })
}

// At size 0 a task goes to Inline, where its timeout applies too: one
// that returns within it completes, its timer stopped, nothing Stuck.
// (One past it: TestInlineHangIsStuckAndQueuedMoveOnResize.)
func TestTimeoutInlineReturnedFirst(t *testing.T) {
	var ex manualExec
	p := newPool(t, Options{Inline: ex.Post, TaskTimeout: time.Minute})
	errs := make(chan error, 1)
	if err := p.Submit(func() {}, func(err error) { errs <- err }); err != nil {
		t.Fatal(err)
	}
	for _, fn := range ex.take() {
		fn()
	}
	if err := recv(t, "done", errs); err != nil {
		t.Fatalf("inline task: %v", err)
	}
	p.timerWG.Wait() // the timer stopped, not left armed
	if s := p.Stats(); s.TimedOut != 0 || s.Completed != 1 || s.Stuck != 0 {
		t.Fatalf("%+v", s)
	}
}
