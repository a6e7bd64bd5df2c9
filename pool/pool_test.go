package pool

import (
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/cpuclock"
	"github.com/offtop/offtop/internal/testkit"
	"go.uber.org/goleak"
)

// OFFTOP_POOL_PRIORITY=1 runs every test with priority workers on
// (Options.Priority), where the OS has them.
func TestMain(m *testing.M) {
	forcePriority = priorityKnown && os.Getenv("OFFTOP_POOL_PRIORITY") == "1"
	goleak.VerifyTestMain(m)
}

// waitUntil polls cond until it holds (testkit.WaitFor).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, what, 0, cond)
}

// recv receives from ch (testkit.Recv).
func recv[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	return testkit.Recv(t, what, 0, ch)
}

func newPool(t *testing.T, o Options) *Pool {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func checkInvariant(t *testing.T, s Stats) {
	t.Helper()
	if s.Submitted != s.Completed+s.Failed+s.TimedOut+s.Canceled+s.Running+s.Queued {
		t.Fatalf("invariant broken: submitted %d != completed %d + failed %d + timed out %d + canceled %d + running %d + queued %d",
			s.Submitted, s.Completed, s.Failed, s.TimedOut, s.Canceled, s.Running, s.Queued)
	}
	// Without timeouts and contexts the old form holds.
	if s.TimedOut == 0 && s.Canceled == 0 && s.Submitted != s.Completed+s.Failed+s.Running+s.Queued {
		t.Fatalf("invariant broken: submitted %d != completed %d + failed %d + running %d + queued %d",
			s.Submitted, s.Completed, s.Failed, s.Running, s.Queued)
	}
	if s.Abandoned < 0 || s.Stuck < 0 || s.Stuck > int64(len(s.Workers)) {
		t.Fatalf("abandoned %d stuck %d with %d workers", s.Abandoned, s.Stuck, len(s.Workers))
	}
	for i := 1; i < len(s.Workers); i++ {
		if s.Workers[i-1].Slot >= s.Workers[i].Slot {
			t.Fatalf("workers not sorted by slot: %+v", s.Workers)
		}
	}
}

func checkFractions(t *testing.T, prev, cur Stats) {
	t.Helper()
	busy, onCPU := Utilization(prev, cur)
	if len(busy) != len(cur.Workers) {
		t.Fatalf("busy has %d entries for %d workers", len(busy), len(cur.Workers))
	}
	for i, f := range append(busy, onCPU...) {
		if !(f >= 0 && f <= 1) {
			t.Fatalf("fraction %d = %v outside 0..1", i, f)
		}
	}
}

// fakeClock is an injected Options.Now that moves only when told.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *fakeClock) Now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Add(d time.Duration) { c.ns.Add(int64(d)) }

// loopExec is an Inline executor like offtop's Loop: one goroutine runs
// posted functions in order; Post never blocks.
type loopExec struct {
	mu   sync.Mutex
	q    []func()
	wake chan struct{}
	stop chan struct{}
	done chan struct{}
	ran  atomic.Int64
}

func startLoop() *loopExec {
	l := &loopExec{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go l.run()
	return l
}

func (l *loopExec) Post(fn func()) {
	l.mu.Lock()
	l.q = append(l.q, fn)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *loopExec) run() {
	defer close(l.done)
	for {
		l.mu.Lock()
		q := l.q
		l.q = nil
		l.mu.Unlock()
		for _, fn := range q {
			fn()
			l.ran.Add(1)
		}
		if len(q) > 0 {
			continue
		}
		select {
		case <-l.wake:
		case <-l.stop:
			return
		}
	}
}

// Close stops the loop after what was posted before it has run.
func (l *loopExec) Close() {
	close(l.stop)
	<-l.done
}

// manualExec is an Inline executor the test drives by hand.
type manualExec struct {
	mu  sync.Mutex
	fns []func()
}

func (e *manualExec) Post(fn func()) {
	e.mu.Lock()
	e.fns = append(e.fns, fn)
	e.mu.Unlock()
}

func (e *manualExec) take() []func() {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := e.fns
	e.fns = nil
	return f
}

func (e *manualExec) len() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.fns)
}

// 1. The invariant holds at every Stats taken while tasks come and go.
func TestInvariantUnderLoad(t *testing.T) {
	p := newPool(t, Options{Size: 3})
	const submitters, per = 4, 5000
	var wg sync.WaitGroup
	wg.Add(submitters * per)
	stop := make(chan struct{})
	checked := make(chan int)
	go func() {
		n := 0
		prev := p.Stats()
		for {
			select {
			case <-stop:
				checked <- n
				return
			default:
			}
			t0 := time.Now()
			s := p.Stats()
			checkInvariant(t, s)
			checkFractions(t, prev, s)
			prev = s
			n++
			// Pacing, not a timing assertion: a Stats merges the latency
			// windows (~25 us, ~0.5 ms with -race), so leave the workload
			// at least 2/3 of the CPU.
			time.Sleep(max(50*time.Microsecond, 2*time.Since(t0)))
		}
	}()
	for g := 0; g < submitters; g++ {
		go func() {
			for i := 0; i < per; i++ {
				var fn func()
				switch {
				case i%10 == 9:
					fn = func() { panic("boom") }
				case i%2 == 0:
					fn = func() {}
				default:
					fn = func() { runtime.Gosched() }
				}
				if err := p.Submit(fn, func(error) { wg.Done() }); err != nil {
					t.Error(err)
					wg.Done()
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	n := <-checked
	if n == 0 {
		t.Fatal("no Stats taken during the workload")
	}
	t.Logf("%d Stats taken during the workload", n)
	s := p.Stats()
	checkInvariant(t, s)
	if s.Submitted != submitters*per || s.Failed != submitters*per/10 || s.Replaced != s.Failed {
		t.Fatalf("counts: %+v", s)
	}
}

// 2. Random resizes between 0 and 16 with an inline loop while 100,000
// tasks are submitted: each runs exactly once and each done is called once.
func TestStressResizeInline(t *testing.T) {
	const n, submitters = 100_000, 4
	loop := startLoop()
	defer loop.Close()
	p, err := New(Options{Size: 4, Inline: loop.Post})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	ran := make([]atomic.Int32, n)
	dones := make([]atomic.Int32, n)
	var finished atomic.Int64
	allDone := make(chan struct{})
	stopResize := make(chan struct{})
	resized := make(chan int)
	go func() {
		r := rand.New(rand.NewPCG(1, 2))
		k := 0
		for {
			select {
			case <-stopResize:
				resized <- k
				return
			default:
			}
			if err := p.Resize(r.IntN(17)); err != nil {
				t.Error(err)
			}
			if k%50 == 0 {
				checkInvariant(t, p.Stats())
			}
			k++
			time.Sleep(100 * time.Microsecond) // pacing, not a timing assertion
		}
	}()
	var sub sync.WaitGroup
	for g := 0; g < submitters; g++ {
		sub.Add(1)
		go func() {
			defer sub.Done()
			for id := g; id < n; id += submitters {
				err := p.Submit(func() { ran[id].Add(1) }, func(err error) {
					if err != nil {
						t.Errorf("task %d: %v", id, err)
					}
					dones[id].Add(1)
					if finished.Add(1) == n {
						close(allDone)
					}
				})
				if err != nil {
					t.Errorf("submit %d: %v", id, err)
					return
				}
			}
		}()
	}
	sub.Wait()
	close(stopResize)
	if k := <-resized; k < 2 {
		t.Fatalf("only %d resizes", k)
	}
	recv(t, "all done callbacks", allDone)
	for id := range ran {
		if r, d := ran[id].Load(), dones[id].Load(); r != 1 || d != 1 {
			t.Fatalf("task %d ran %d times, done called %d times", id, r, d)
		}
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Submitted != n || s.Completed != n || s.Failed != 0 || s.Running != 0 || s.Queued != 0 {
		t.Fatalf("counts: submitted %d completed %d failed %d running %d queued %d",
			s.Submitted, s.Completed, s.Failed, s.Running, s.Queued)
	}
	if s.TotalAll.Count != n {
		t.Fatalf("latency recorded %d tasks, want %d", s.TotalAll.Count, n)
	}
	t.Logf("inline loop ran %d of %d tasks", loop.ran.Load(), n)
}

// 3. Growing from 1 to 8 starts the 7 tasks queued behind a long one at once.
func TestGrowStartsQueuedTasks(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	release := make(chan struct{})
	longStarted := make(chan struct{})
	if err := p.Submit(func() { close(longStarted); <-release }, nil); err != nil {
		t.Fatal(err)
	}
	recv(t, "long task start", longStarted)
	started := make(chan int, 7)
	for i := 0; i < 7; i++ {
		if err := p.Submit(func() { started <- i }, nil); err != nil {
			t.Fatal(err)
		}
	}
	if s := p.Stats(); s.Queued != 7 || s.Running != 1 {
		t.Fatalf("before grow: queued %d running %d", s.Queued, s.Running)
	}
	if err := p.Resize(8); err != nil {
		t.Fatal(err)
	}
	s := p.Stats()
	if s.Size != 8 || len(s.Workers) != 8 {
		t.Fatalf("after grow: size %d, %d workers", s.Size, len(s.Workers))
	}
	for i, w := range s.Workers {
		if w.Slot != i {
			t.Fatalf("worker %d in slot %d, want lowest free slots", i, w.Slot)
		}
	}
	seen := map[int]bool{}
	for range 7 {
		seen[recv(t, "queued task start before release", started)] = true
	}
	if len(seen) != 7 {
		t.Fatalf("started %v", seen)
	}
	close(release)
}

// 4. Five panicking tasks on a pool of 1: all fail, the worker is replaced
// each time, and the pool goes on.
func TestPanicReplacesWorker(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	for i := 0; i < 5; i++ {
		err := p.Do(func() { panic("boom") })
		var pe *PanicError
		if !errors.As(err, &pe) || pe.Value != "boom" {
			t.Fatalf("Do = %v, want *PanicError boom", err)
		}
		if !strings.Contains(string(pe.Stack), "TestPanicReplacesWorker") {
			t.Fatalf("stack does not show the panic site:\n%s", pe.Stack)
		}
	}
	if err := p.Do(func() {}); err != nil {
		t.Fatal(err)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Failed != 5 || s.Replaced != 5 || s.Completed != 1 {
		t.Fatalf("failed %d replaced %d completed %d", s.Failed, s.Replaced, s.Completed)
	}
	if len(s.Workers) != 1 || s.Workers[0].Slot != 0 || s.Workers[0].Failed != 5 || s.Workers[0].Completed != 1 {
		t.Fatalf("workers: %+v", s.Workers)
	}
}

// A task that panics with an error unwraps to it.
func TestPanicErrorUnwraps(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	sentinel := errors.New("sentinel")
	if err := p.Do(func() { panic(sentinel) }); !errors.Is(err, sentinel) {
		t.Fatalf("Do = %v, want it to wrap sentinel", err)
	}
}

// runtime.Goexit in a task kills its goroutine: counted failed, replaced.
func TestGoexitInTask(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	if err := p.Do(func() { runtime.Goexit() }); !errors.Is(err, errGoexit) {
		t.Fatalf("Do = %v, want errGoexit", err)
	}
	if err := p.Do(func() {}); err != nil {
		t.Fatal(err)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Failed != 1 || s.Replaced != 1 || s.Completed != 1 {
		t.Fatalf("failed %d replaced %d completed %d", s.Failed, s.Replaced, s.Completed)
	}
}

// 5. With an injected clock: a worker in one long task reads exactly 1.0
// busy in every interval, an idle one 0, and an idle pool 0 within one
// interval; every fraction stays in 0..1.
func TestUtilizationInjectedClock(t *testing.T) {
	clk := newFakeClock()
	p := newPool(t, Options{Size: 2, Now: clk.Now})
	release := make(chan struct{})
	started := make(chan struct{})
	done := make(chan error, 1)
	if err := p.Submit(func() { close(started); <-release }, func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	recv(t, "task start", started)
	prev := p.Stats()
	for i := 0; i < 3; i++ {
		clk.Add(250 * time.Millisecond)
		cur := p.Stats()
		checkFractions(t, prev, cur)
		busy, _ := Utilization(prev, cur)
		if len(busy) != 2 || busy[0] != 1 || busy[1] != 0 {
			t.Fatalf("interval %d: busy %v, want [1 0] (task on slot 0)", i, busy)
		}
		prev = cur
	}
	close(release)
	if err := recv(t, "done", done); err != nil {
		t.Fatal(err)
	}
	// done runs before the worker ends its run (it looks for a next task
	// first): wait for the run's end, or the idle interval below would
	// count it.
	waitUntil(t, "slot 0's run ended", func() bool {
		p.mu.Lock()
		acct := p.slots[0].runAcct
		p.mu.Unlock()
		acct.mu.Lock()
		defer acct.mu.Unlock()
		return !acct.inRun
	})
	cur := p.Stats()
	checkFractions(t, prev, cur)
	if cur.Workers[0].Busy != 750*time.Millisecond {
		t.Fatalf("busy %v, want 750ms", cur.Workers[0].Busy)
	}
	prev = cur
	clk.Add(250 * time.Millisecond)
	cur = p.Stats()
	busy, onCPU := Utilization(prev, cur)
	if busy[0] != 0 || busy[1] != 0 {
		t.Fatalf("idle pool: busy %v, want 0", busy)
	}
	checkFractions(t, prev, cur)
	if cpuclock.Known && onCPU == nil {
		t.Fatal("onCPU nil on an OS with thread clocks")
	}
	if s := cur.TotalAll; s.Count != 1 || s.Max < 740*time.Millisecond {
		t.Fatalf("total latency %+v, want one ~750ms sample", s)
	}
}

func TestUtilizationPure(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ws := func(slot int, gen uint64, busy, cpu time.Duration) Worker {
		return Worker{Slot: slot, gen: gen, Busy: busy, OnCPU: cpu, OnCPUKnown: true}
	}
	ms := time.Millisecond
	cases := []struct {
		name       string
		prev, cur  Stats
		busy, oncp []float64
	}{
		{"half", Stats{At: t0, Workers: []Worker{ws(0, 1, 100*ms, 10*ms)}},
			Stats{At: t0.Add(100 * ms), Workers: []Worker{ws(0, 1, 150*ms, 30*ms)}},
			[]float64{0.5}, []float64{0.2}},
		{"clamped", Stats{At: t0, Workers: []Worker{ws(0, 1, 100*ms, 50*ms), ws(1, 2, 0, 0)}},
			Stats{At: t0.Add(100 * ms), Workers: []Worker{ws(0, 1, 90*ms, 40*ms), ws(1, 2, 300*ms, 300*ms)}},
			[]float64{0, 1}, []float64{0, 1}},
		{"new slot from prev.At", Stats{At: t0, Workers: []Worker{ws(0, 1, 100*ms, 0)}},
			Stats{At: t0.Add(100 * ms), Workers: []Worker{ws(0, 1, 100*ms, 0), ws(3, 2, 25*ms, 0)}},
			[]float64{0, 0.25}, []float64{0, 0}},
		{"restarted slot from zero", Stats{At: t0, Workers: []Worker{ws(2, 1, 900*ms, 0)}},
			Stats{At: t0.Add(100 * ms), Workers: []Worker{ws(2, 7, 50*ms, 0)}},
			[]float64{0.5}, []float64{0}},
		{"no time passed", Stats{At: t0, Workers: []Worker{ws(0, 1, 0, 0)}},
			Stats{At: t0, Workers: []Worker{ws(0, 1, 50*ms, 0)}},
			[]float64{0}, []float64{0}},
		{"cpu unknown", Stats{At: t0},
			Stats{At: t0.Add(100 * ms), Workers: []Worker{{Slot: 0, Busy: 10 * ms}}},
			[]float64{0.1}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			busy, oncpu := Utilization(c.prev, c.cur)
			if !floatsEqual(busy, c.busy) || !floatsEqual(oncpu, c.oncp) || (oncpu == nil) != (c.oncp == nil) {
				t.Fatalf("got busy %v onCPU %v, want %v %v", busy, oncpu, c.busy, c.oncp)
			}
		})
	}
}

func floatsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > 1e-9 || d < -1e-9 {
			return false
		}
	}
	return true
}

// 6a. Shrinking retires idle workers before busy ones, even when the busy
// one has the highest slot.
func TestShrinkRetiresIdleFirst(t *testing.T) {
	p := newPool(t, Options{Size: 4})
	var rel [4]chan struct{}
	started := make(chan int, 4)
	var done sync.WaitGroup
	for i := range rel {
		rel[i] = make(chan struct{})
		done.Add(1)
		if err := p.Submit(func() { started <- i; <-rel[i] }, func(error) { done.Done() }); err != nil {
			t.Fatal(err)
		}
		if got := recv(t, "start", started); got != i {
			t.Fatalf("started %d, want %d", got, i)
		}
		// Idle workers are handed tasks lowest slot first.
		if w := p.Stats().Workers[i]; w.Slot != i || !w.Running {
			t.Fatalf("task %d: worker %+v, want slot %d running", i, w, i)
		}
	}
	for i := 0; i < 3; i++ {
		close(rel[i])
	}
	waitUntil(t, "3 tasks completed", func() bool { return p.Stats().Completed == 3 })
	if err := p.Resize(1); err != nil {
		t.Fatal(err)
	}
	s := p.Stats()
	if s.Size != 1 || len(s.Workers) != 1 {
		t.Fatalf("after Resize(1): size %d workers %+v", s.Size, s.Workers)
	}
	if w := s.Workers[0]; w.Slot != 3 || !w.Running || w.Retiring {
		t.Fatalf("kept %+v, want busy slot 3 not retiring", w)
	}
	// Shrinking to 0 marks the busy one; growing back un-retires it
	// before starting anyone else.
	if err := p.Resize(0); err != nil {
		t.Fatal(err)
	}
	if w := p.Stats().Workers; len(w) != 1 || !w[0].Retiring || !w[0].Running {
		t.Fatalf("after Resize(0): %+v, want slot 3 running and retiring", w)
	}
	if err := p.Resize(2); err != nil {
		t.Fatal(err)
	}
	s = p.Stats()
	if len(s.Workers) != 2 || s.Workers[0].Slot != 0 || s.Workers[1].Slot != 3 || s.Workers[1].Retiring {
		t.Fatalf("after Resize(2): %+v, want slot 3 un-retired and slot 0 new", s.Workers)
	}
	close(rel[3])
	done.Wait()
	checkInvariant(t, p.Stats())
}

// 6b. Tasks are not lost when the pool (without Inline) shrinks to 0 while
// busy, the busy worker exits, and the pool grows again.
func TestShrinkToZeroThenGrowKeepsTasks(t *testing.T) {
	p := newPool(t, Options{Size: 2})
	release := make(chan struct{})
	started := make(chan struct{})
	var done sync.WaitGroup
	var ran atomic.Int32
	done.Add(1)
	if err := p.Submit(func() { close(started); <-release }, func(error) { done.Done() }); err != nil {
		t.Fatal(err)
	}
	recv(t, "start", started)
	if err := p.Resize(0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		done.Add(1)
		if err := p.Submit(func() { ran.Add(1) }, func(error) { done.Done() }); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	waitUntil(t, "retired worker exit", func() bool { return len(p.Stats().Workers) == 0 })
	if s := p.Stats(); s.Queued != 5 || s.Running != 0 || s.Completed != 1 {
		t.Fatalf("at size 0: %+v", s)
	}
	if err := p.Resize(1); err != nil {
		t.Fatal(err)
	}
	done.Wait()
	if s := p.Stats(); ran.Load() != 5 || s.Completed != 6 {
		t.Fatalf("ran %d, completed %d", ran.Load(), s.Completed)
	}
}

// 7. Close drops queued tasks with ErrClosed (counted failed), waits for the
// running one, is safe twice and concurrently, and leaves no goroutine.
func TestClose(t *testing.T) {
	p, err := New(Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	started := make(chan struct{})
	longDone := make(chan error, 1)
	if err := p.Submit(func() { close(started); <-release }, func(err error) { longDone <- err }); err != nil {
		t.Fatal(err)
	}
	recv(t, "start", started)
	dropped := make(chan error, 5)
	for i := 0; i < 5; i++ {
		if err := p.Submit(func() { t.Error("dropped task ran") }, func(err error) { dropped <- err }); err != nil {
			t.Fatal(err)
		}
	}
	closed := make(chan struct{}, 2)
	for range 2 {
		go func() { p.Close(); closed <- struct{}{} }()
	}
	for range 5 {
		if err := recv(t, "dropped done", dropped); !errors.Is(err, ErrClosed) {
			t.Fatalf("dropped task done(%v), want ErrClosed", err)
		}
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Failed != 5 || s.Running != 1 || s.Queued != 0 {
		t.Fatalf("while closing: failed %d running %d queued %d", s.Failed, s.Running, s.Queued)
	}
	select {
	case <-closed:
		t.Fatal("Close returned while a task was running")
	default:
	}
	if err := p.Submit(func() {}, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Submit after Close = %v", err)
	}
	if err := p.Resize(3); !errors.Is(err, ErrClosed) {
		t.Fatalf("Resize after Close = %v", err)
	}
	close(release)
	recv(t, "first Close", closed)
	recv(t, "second Close", closed)
	if err := <-longDone; err != nil {
		t.Fatal(err)
	}
	p.Close()
	s = p.Stats()
	checkInvariant(t, s)
	if s.Completed != 1 || s.Failed != 5 || s.Running != 0 || len(s.Workers) != 0 {
		t.Fatalf("after Close: %+v", s)
	}
	goleak.VerifyNone(t)
}

// 8. Sizes outside 0..MaxSize are refused with ErrSize naming the value.
func TestResizeErrSize(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	for _, n := range []int{257, -1} {
		err := p.Resize(n)
		if !errors.Is(err, ErrSize) {
			t.Fatalf("Resize(%d) = %v, want ErrSize", n, err)
		}
		if !strings.Contains(err.Error(), ": "+itoa(n)) {
			t.Fatalf("Resize(%d) error %q does not name the value", n, err)
		}
	}
	if s := p.Stats(); s.Size != 1 || len(s.Workers) != 1 {
		t.Fatalf("refused resize changed the pool: %+v", s)
	}
	if _, err := New(Options{Size: MaxSize + 1}); !errors.Is(err, ErrSize) {
		t.Fatalf("New(257) = %v", err)
	}
	if err := p.Resize(MaxSize); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); len(s.Workers) != MaxSize {
		t.Fatalf("%d workers at MaxSize", len(s.Workers))
	}
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + itoa(n%10)
}

// 9. The on-CPU time of a spinning task shows in Stats before it ends: the
// per-thread clock id read from outside the thread works.
func TestOnCPUInProgress(t *testing.T) {
	if !cpuclock.Known {
		t.Skip("no thread CPU clock on this OS")
	}
	p := newPool(t, Options{Size: 1})
	var stop atomic.Bool
	started := make(chan struct{})
	done := make(chan error, 1)
	if err := p.Submit(func() {
		close(started)
		for !stop.Load() {
		}
	}, func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	recv(t, "start", started)
	waitUntil(t, "on-CPU > 5ms while the task spins", func() bool {
		w := p.Stats().Workers[0]
		if !w.OnCPUKnown || !w.Running {
			t.Fatalf("worker %+v", w)
		}
		return w.OnCPU > 5*time.Millisecond
	})
	select {
	case <-done:
		t.Fatal("task ended before stop")
	default:
	}
	stop.Store(true)
	recv(t, "done", done)
}

// A blocked task is busy but not on CPU.
func TestOnCPUBlockedTask(t *testing.T) {
	if !cpuclock.Known {
		t.Skip("no thread CPU clock on this OS")
	}
	p := newPool(t, Options{Size: 1})
	release := make(chan struct{})
	done := make(chan error, 1)
	if err := p.Submit(func() { <-release }, func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "busy > 50ms", func() bool { return p.Stats().Workers[0].Busy > 50*time.Millisecond })
	w := p.Stats().Workers[0]
	close(release)
	recv(t, "done", done)
	if w.OnCPU > w.Busy/2 {
		t.Fatalf("blocked task on CPU %v of busy %v", w.OnCPU, w.Busy)
	}
}

// Tasks on one worker run in submission order.
func TestFIFO(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	release := make(chan struct{})
	if err := p.Submit(func() { <-release }, nil); err != nil {
		t.Fatal(err)
	}
	var order []int // written by the one worker only
	const n = 200
	for i := 0; i < n; i++ {
		if err := p.Submit(func() { order = append(order, i) }, nil); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	if err := p.Do(func() {}); err != nil {
		t.Fatal(err)
	}
	for i, v := range order {
		if v != i {
			t.Fatalf("order[%d] = %d", i, v)
		}
	}
	if len(order) != n {
		t.Fatalf("%d ran", len(order))
	}
}

// At size 0 tasks go to Inline in order, counted queued until the wrapper
// starts them, then running; a panic there is recovered and counted failed.
func TestInlineAccounting(t *testing.T) {
	var ex manualExec
	p := newPool(t, Options{Inline: ex.Post})
	var order []int
	errs := make([]error, 3)
	for i := 0; i < 3; i++ {
		fn := func() {
			s := p.Stats()
			checkInvariant(t, s)
			if s.Running != 1 || s.Queued != int64(2-i) {
				t.Errorf("inside task %d: running %d queued %d", i, s.Running, s.Queued)
			}
			order = append(order, i)
		}
		if i == 2 {
			fn = func() { order = append(order, 2); panic("inline boom") }
		}
		if err := p.Submit(fn, func(err error) { errs[i] = err }); err != nil {
			t.Fatal(err)
		}
	}
	if s := p.Stats(); s.Queued != 3 || s.Running != 0 || s.Submitted != 3 {
		t.Fatalf("handed over: %+v", s)
	}
	fns := ex.take()
	if len(fns) != 3 {
		t.Fatalf("executor got %d", len(fns))
	}
	for _, fn := range fns {
		fn()
	}
	fns[0]() // a second call is a no-op
	if len(order) != 3 || order[0] != 0 || order[1] != 1 || order[2] != 2 {
		t.Fatalf("order %v", order)
	}
	var pe *PanicError
	if errs[0] != nil || errs[1] != nil || !errors.As(errs[2], &pe) {
		t.Fatalf("errs %v", errs)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Completed != 2 || s.Failed != 1 || s.Replaced != 0 || s.Queued != 0 || s.Running != 0 {
		t.Fatalf("after: %+v", s)
	}
}

// Resizing to 0 hands the queue to Inline in order; growing again takes
// the handed tasks back for the workers, ahead of new submissions (the
// wrappers Inline holds then run nothing): order holds.
func TestResizeToZeroHandsQueueToInline(t *testing.T) {
	var ex manualExec
	p := newPool(t, Options{Size: 1, Inline: ex.Post})
	release := make(chan struct{})
	started := make(chan struct{})
	if err := p.Submit(func() { close(started); <-release }, nil); err != nil {
		t.Fatal(err)
	}
	recv(t, "start", started)
	var order []int
	var mu sync.Mutex
	var done sync.WaitGroup
	add := func(i int) {
		done.Add(1)
		if err := p.Submit(func() { mu.Lock(); order = append(order, i); mu.Unlock() }, func(error) { done.Done() }); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ {
		add(i)
	}
	if ex.len() != 0 {
		t.Fatal("handed to Inline while a worker exists")
	}
	if err := p.Resize(0); err != nil {
		t.Fatal(err)
	}
	if ex.len() != 3 {
		t.Fatalf("Resize(0) handed %d tasks, want 3", ex.len())
	}
	add(3) // at size 0: straight to Inline
	if err := p.Resize(1); err != nil {
		t.Fatal(err)
	}
	add(4) // to the (un-retired, busy) worker's queue
	if ex.len() != 4 {
		t.Fatalf("Inline has %d wrappers, want 4", ex.len())
	}
	if s := p.Stats(); s.Queued != 5 || len(s.Workers) != 1 || s.Workers[0].Retiring {
		t.Fatalf("%+v", s)
	}
	for _, fn := range ex.take() {
		fn()
	}
	close(release)
	done.Wait()
	mu.Lock()
	defer mu.Unlock()
	for i, v := range order {
		if v != i {
			t.Fatalf("order %v", order)
		}
	}
}

// Close drops tasks handed to Inline and not started; running them later
// does nothing.
func TestCloseDropsInlinePending(t *testing.T) {
	var ex manualExec
	p, err := New(Options{Inline: ex.Post})
	if err != nil {
		t.Fatal(err)
	}
	var ran atomic.Int32
	errs := make(chan error, 2)
	for range 2 {
		if err := p.Submit(func() { ran.Add(1) }, func(err error) { errs <- err }); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	for range 2 {
		if err := <-errs; !errors.Is(err, ErrClosed) {
			t.Fatalf("done(%v)", err)
		}
	}
	for _, fn := range ex.take() {
		fn()
	}
	s := p.Stats()
	checkInvariant(t, s)
	if ran.Load() != 0 || s.Failed != 2 || s.Queued != 0 {
		t.Fatalf("ran %d, %+v", ran.Load(), s)
	}
}

func TestQueueFull(t *testing.T) {
	p := newPool(t, Options{MaxQueue: 2})
	for i := 0; i < 2; i++ {
		if err := p.Submit(func() {}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Submit(func() {}, func(error) { t.Error("done called for a rejected task") }); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("Submit = %v, want ErrQueueFull", err)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Submitted != 2 || s.Rejected != 1 || s.Queued != 2 {
		t.Fatalf("%+v", s)
	}
	if err := p.Resize(1); err != nil {
		t.Fatal(err)
	}
	if err := p.Do(func() {}); err != nil {
		t.Fatal(err)
	}
}

func TestLatencyRecordedAndReset(t *testing.T) {
	p := newPool(t, Options{Size: 2, Window: time.Second})
	for i := 0; i < 10; i++ {
		if err := p.Do(func() {}); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Do(func() { panic("x") }); err == nil {
		t.Fatal("no error from a panicking task")
	}
	s := p.Stats()
	for _, c := range []int64{s.Wait.Count, s.Run.Count, s.Total.Count, s.WaitAll.Count, s.RunAll.Count, s.TotalAll.Count} {
		if c != 11 {
			t.Fatalf("latency counts %+v, want 11 each", s)
		}
	}
	p.ResetLatency()
	s = p.Stats()
	if s.Total.Count != 0 || s.TotalAll.Count != 0 || s.Completed != 10 {
		t.Fatalf("after reset: total %d all %d completed %d", s.Total.Count, s.TotalAll.Count, s.Completed)
	}
}

// A worker marked Retiring whose task panics exits instead of being
// replaced; the slot is freed and the pool keeps its size.
func TestPanicWhileRetiring(t *testing.T) {
	p := newPool(t, Options{Size: 1})
	release := make(chan struct{})
	started := make(chan struct{})
	done := make(chan error, 1)
	if err := p.Submit(func() { close(started); <-release; panic("late") }, func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	recv(t, "start", started)
	if err := p.Resize(0); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := recv(t, "done", done); err == nil {
		t.Fatal("no error from a panicking task")
	}
	waitUntil(t, "retiree exit", func() bool { return len(p.Stats().Workers) == 0 })
	s := p.Stats()
	checkInvariant(t, s)
	if s.Failed != 1 || s.Replaced != 0 || s.Size != 0 {
		t.Fatalf("%+v", s)
	}
	if err := p.Resize(1); err != nil {
		t.Fatal(err)
	}
	if err := p.Do(func() {}); err != nil {
		t.Fatal(err)
	}
}

// A retired slot that starts again counts from zero and Utilization treats
// it as new, not as a negative difference.
func TestRestartedSlotCountsFromZero(t *testing.T) {
	clk := newFakeClock()
	p := newPool(t, Options{Size: 1, Now: clk.Now})
	release := make(chan struct{})
	started := make(chan struct{})
	done := make(chan error, 1)
	if err := p.Submit(func() { close(started); <-release }, func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	recv(t, "start", started)
	clk.Add(time.Second)
	close(release)
	recv(t, "done", done)
	prev := p.Stats()
	if prev.Workers[0].Busy != time.Second {
		t.Fatalf("busy %v", prev.Workers[0].Busy)
	}
	if err := p.Resize(0); err != nil {
		t.Fatal(err)
	}
	if err := p.Resize(1); err != nil {
		t.Fatal(err)
	}
	clk.Add(100 * time.Millisecond)
	cur := p.Stats()
	w := cur.Workers[0]
	if w.Slot != 0 || w.Busy != 0 || w.Completed != 0 || w.gen == prev.Workers[0].gen {
		t.Fatalf("restarted slot: %+v", w)
	}
	if busy, _ := Utilization(prev, cur); busy[0] != 0 {
		t.Fatalf("busy %v", busy)
	}
}

// TestSubmitAndDoAllocateNothing pins the dispatch path's zero allocations
// per task (a recycled task, Do's reply channel from a free list, latencies
// kept per worker). A GC in the middle empties the free lists, hence an
// average under 0.1 rather than exactly 0.
func TestSubmitAndDoAllocateNothing(t *testing.T) {
	p, err := New(Options{Size: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	task := func() {}
	if a := testing.AllocsPerRun(2000, func() {
		if err := p.Do(task); err != nil {
			t.Fatal(err)
		}
	}); a >= 0.1 {
		t.Errorf("Do: %.2f allocs per task, want 0", a)
	}
	done := make(chan struct{}, 1)
	signal := func(error) { done <- struct{}{} }
	if a := testing.AllocsPerRun(2000, func() {
		if err := p.Submit(task, signal); err != nil {
			t.Fatal(err)
		}
		<-done
	}); a >= 0.1 {
		t.Errorf("Submit: %.2f allocs per task, want 0", a)
	}
	// A submitter running ahead of a blocked worker: the queue grows, new
	// tasks come a slab at a time (and the queue's buffer doubles).
	release := make(chan struct{})
	if err := p.Resize(1); err != nil {
		t.Fatal(err)
	}
	if err := p.Submit(func() { <-release }, nil); err != nil {
		t.Fatal(err)
	}
	defer close(release)
	if a := testing.AllocsPerRun(5000, func() {
		if err := p.Submit(task, nil); err != nil {
			t.Fatal(err)
		}
	}); a >= 0.1 {
		t.Errorf("Submit with a growing queue: %.3f allocs per task, want about 1/%d", a, taskSlab)
	}
}

// TestOnCPUMatchesTheThreadClock: a task burns a known amount of CPU time
// (200ms of its own thread clock, however long that takes in wall time on
// a busy machine) on the only worker; the worker's OnCPU, read by Stats
// while the task burns and after it, agrees with the task's own reading of
// its thread clock: mid-run no more than the final figure, and at the end
// within 5% above it (the run also holds the pool's bookkeeping) and never
// below it.
func TestOnCPUMatchesTheThreadClock(t *testing.T) {
	if !cpuclock.Known {
		t.Skip("no thread CPU clock on this OS")
	}
	const burn = 200 * time.Millisecond
	p := newPool(t, Options{Size: 1})
	var burned atomic.Int64 // the task's own thread CPU time so far, ns
	done := make(chan error, 1)
	if err := p.Submit(func() {
		c0, ok := cpuclock.Self()
		if !ok {
			panic("no thread clock")
		}
		for {
			c, _ := cpuclock.Self()
			burned.Store(int64(c - c0))
			if c-c0 >= burn {
				return
			}
			for i := 0; i < 20000; i++ { // ~tens of us of work between reads
				sinkWork = sinkWork*31 + uint64(i)
			}
		}
	}, func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the task has burned 50ms", func() bool { return burned.Load() > int64(50*time.Millisecond) })
	mid := p.Stats().Workers[0]
	recv(t, "done", done)
	end := p.Stats().Workers[0]
	own := time.Duration(burned.Load())
	if !mid.OnCPUKnown || !end.OnCPUKnown {
		t.Fatalf("on-CPU unknown: mid %+v end %+v", mid, end)
	}
	if mid.OnCPU <= 0 || mid.OnCPU > end.OnCPU {
		t.Errorf("mid-run on-CPU %v, want in (0, %v]", mid.OnCPU, end.OnCPU)
	}
	if end.OnCPU < own || float64(end.OnCPU) > 1.05*float64(own) {
		t.Errorf("worker on-CPU %v, task's own thread clock %v: want within +5%%", end.OnCPU, own)
	}
}

var sinkWork uint64

// TestPanicHandlerGetsADoneCallbacksPanic: a panic in a done callback is
// not a task's (it cannot be handed to done): it goes to
// Options.PanicHandler, not to the program-wide crash handler, and Close
// (newPool's cleanup) still returns.
func TestPanicHandlerGetsADoneCallbacksPanic(t *testing.T) {
	got := make(chan any, 1)
	p := newPool(t, Options{Size: 1, PanicHandler: func(v any) { got <- v }})
	if err := p.Submit(func() {}, func(error) { panic("done callback bug") }); err != nil {
		t.Fatal(err)
	}
	if v := recv(t, "the handler's value", got); v != "done callback bug" {
		t.Fatalf("handler got %v", v)
	}
}

// TestShortRunsAreNotClocked: after a streak of shortStreak runs shorter
// than shortRun a worker's runs skip the thread CPU clock (no thread lock,
// no reads; wall time as on-CPU); a long run makes the next shortStreak
// runs clocked, so a blocked task between short ones is read off-CPU.
func TestShortRunsAreNotClocked(t *testing.T) {
	if !cpuclock.Known {
		t.Skip("no thread CPU clock on this OS")
	}
	// The pool's clock is a fake one that moves only when block moves it:
	// a trivial run lasts 0 whatever the machine's load, a blocked one
	// 20 ms, well past shortRun.
	clk := clock.NewFake(time.Now())
	p := newPool(t, Options{Size: 1, Now: clk.Now})
	acct := func() *runAcct {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.slots[0].runAcct
	}
	clocked := func() int64 {
		a := acct()
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.clockedRuns
	}
	// idle waits until the worker has ended its run: a task's report
	// comes before the worker looks for its next task, so a task
	// submitted right after another's report may join that one's run.
	idle := func() {
		t.Helper()
		a := acct()
		testkit.WaitFor(t, "end of the worker's run", 0, func() bool {
			a.mu.Lock()
			defer a.mu.Unlock()
			return !a.inRun
		})
	}
	do := func() {
		t.Helper()
		if err := p.Do(func() {}); err != nil {
			t.Fatal(err)
		}
		idle()
	}
	const n = 200
	for range n {
		do()
	}
	if c := clocked(); c != shortStreak {
		t.Errorf("%d of %d trivial runs clocked, want the first %d", c, n, shortStreak)
	}
	// block runs a task that waits while the pool's clock moves 20 ms,
	// and returns the worker's Busy and OnCPU added meanwhile.
	block := func() (busy, onCPU time.Duration) {
		w0 := p.Stats().Workers[0]
		started, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		if err := p.Submit(func() { close(started); <-release }, func(err error) { done <- err }); err != nil {
			t.Fatal(err)
		}
		recv(t, "the blocked task started", started)
		clk.Advance(20 * time.Millisecond)
		w := p.Stats().Workers[0]
		close(release)
		recv(t, "done", done)
		idle()
		return w.Busy - w0.Busy, w.OnCPU - w0.OnCPU
	}
	block() // long: the next shortStreak runs are clocked, whatever this one was
	c := clocked()
	busy, onCPU := block()
	if got := clocked(); got != c+1 {
		t.Errorf("the run after a long one: clocked runs %d -> %d, want one more", c, got)
	}
	if onCPU > busy/2 {
		t.Errorf("blocked task on a clocked run: on CPU %v of busy %v", onCPU, busy)
	}
	// Short and blocked runs alternating: no streak forms, every blocked
	// run is clocked and read off-CPU.
	for range 3 {
		do()
		if busy, onCPU := block(); onCPU > busy/2 {
			t.Errorf("blocked task after one short run: on CPU %v of busy %v", onCPU, busy)
		}
	}
}
