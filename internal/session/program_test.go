package session

import (
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/offtop/offtop/pool"
)

// TestProgramSession pins the agent's engine: it samples and resizes the
// program's pool, refuses what is not there, and leaves the pool open.
func TestProgramSession(t *testing.T) {
	p := testPool(t, pool.Options{Size: 2})
	s, step := stepped(t, Config{Program: &Program{Name: "svc", Pool: p}})
	snap := step()
	if snap.Scenario != "svc" || snap.Workers != 2 {
		t.Fatalf("first sample: scenario %q workers %d, want svc 2", snap.Scenario, snap.Workers)
	}
	if err := s.Apply(Action{Kind: SetWorkers, N: 4}); err != nil {
		t.Fatal(err)
	}
	if n := p.Stats().Size; n != 4 {
		t.Fatalf("program's pool has %d workers, want 4", n)
	}
	if err := s.Apply(Action{Kind: Load, N: 1}); !errors.Is(err, ErrAction) {
		t.Fatalf("load in a program: %v, want ErrAction", err)
	}
	if err := s.Apply(Action{Kind: NextScenario}); !errors.Is(err, ErrAction) {
		t.Fatalf("tab in a program: %v, want ErrAction", err)
	}
	s.Close()
	if err := p.Do(func() {}); err != nil {
		t.Fatalf("the session closed the program's pool: %v", err)
	}
}

// testPool is a pool made with o, closed at the end of the test.
func testPool(t *testing.T, o pool.Options) *pool.Pool {
	t.Helper()
	p, err := pool.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// programSessionOf is a Program session named svc over a pool made with
// o, sampling every 10 ms; both are closed at the end of the test.
func programSessionOf(t *testing.T, o pool.Options) (*pool.Pool, *Session) {
	t.Helper()
	p := testPool(t, o)
	s, err := New(Config{Interval: 10 * time.Millisecond, Program: &Program{Name: "svc", Pool: p}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return p, s
}

func TestProgramWithoutPoolRefusesResize(t *testing.T) {
	s, err := New(Config{Interval: 10 * time.Millisecond, Program: &Program{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.Snapshot().Scenario; got != DefaultProgramName {
		t.Fatalf("scenario %q, want %q", got, DefaultProgramName)
	}
	if err := s.Apply(Action{Kind: SetWorkers, N: 1}); !errors.Is(err, ErrAction) {
		t.Fatalf("resize with no pool: %v, want ErrAction", err)
	}
	if err := s.Apply(Action{Kind: Reset}); err != nil {
		t.Fatal(err)
	}
}

// TestProgramLookSaysWhoseLateness: the Loop probe's label names the
// program's loop when it gave one (Post), else the agent's own goroutine.
func TestProgramLookSaysWhoseLateness(t *testing.T) {
	for _, c := range []struct {
		post      func(func())
		want, not string
	}{
		{nil, "gave no loop (agent.Options.Post)", "its loop's lateness"},
		{func(fn func()) { go fn() }, "its loop's lateness", "no loop"},
	} {
		s, err := New(Config{Interval: 10 * time.Millisecond, Program: &Program{Name: "svc", Post: c.post}})
		if err != nil {
			t.Fatal(err)
		}
		snap := s.Snapshot()
		s.Close()
		if !strings.Contains(snap.Look, c.want) || strings.Contains(snap.Look, c.not) {
			t.Errorf("look %q: want %q, not %q", snap.Look, c.want, c.not)
		}
		// The program's own loop is not the session's to time: its busy
		// share is unknown, not the idle session Loop's 0.
		s, next := stepped(t, Config{Interval: 250 * time.Millisecond, Program: &Program{Name: "svc", Post: c.post}})
		busy := next().LoopBusy
		s.Close()
		if mine := c.post == nil; mine == math.IsNaN(float64(busy)) {
			t.Errorf("post given %v: loop_busy %v, want unknown (NaN) exactly when the loop is the program's", !mine, busy)
		}
	}
}

// programOnFakeClock is a Program session over p whose sampler runs on a
// fake clock, and next, which moves the clock one interval and returns the
// sample it brings.
func programOnFakeClock(t *testing.T, p ProgramPool) (*Session, func() Snapshot) {
	t.Helper()
	return stepped(t, Config{Interval: 250 * time.Millisecond, Window: 5 * time.Second, Program: &Program{Name: "svc", Pool: p}})
}

// busy submits a task to p that runs until the returned release is called,
// and waits until it runs.
func busy(t *testing.T, p *pool.Pool) (release func()) {
	t.Helper()
	started, stop := make(chan struct{}), make(chan struct{})
	if err := p.Submit(func() { close(started); <-stop }, nil); err != nil {
		t.Fatal(err)
	}
	<-started
	return func() { close(stop) }
}

func currentRow(t *testing.T, snap Snapshot) SizeRow {
	t.Helper()
	for _, r := range snap.Sizes {
		if r.Current {
			return r
		}
	}
	t.Fatalf("no current row in %+v", snap.Sizes)
	return SizeRow{}
}

// TestProgramResizedByItselfGetsItsRow: a program that resizes its own pool
// (not through an Action) gets a row for the new size from the next sample;
// the old row stops counting.
func TestProgramResizedByItselfGetsItsRow(t *testing.T) {
	p, err := pool.New(pool.Options{Size: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, next := programOnFakeClock(t, p)
	defer busy(t, p)()
	for range 8 {
		next()
	}
	if err := p.Resize(4); err != nil { // the program's own resize
		t.Fatal(err)
	}
	snap := next()
	if r := currentRow(t, snap); r.Workers != 4 || snap.Workers != 4 {
		t.Fatalf("after the program's resize to 4: current row %d workers, snapshot %d, want 4", r.Workers, snap.Workers)
	}
	two := rowOf(t, snap.Sizes, "svc", 2).Held
	for range 8 {
		snap = next()
	}
	if r := rowOf(t, snap.Sizes, "svc", 2); r.Held != two || r.Current {
		t.Errorf("row 2 after the resize: held %v (was %v), current %v: still counting", r.Held, two, r.Current)
	}
	if r := rowOf(t, snap.Sizes, "svc", 4); r.Held < 2*time.Second {
		t.Errorf("row 4 held %v after 8 intervals of 250ms, want >= 2s", r.Held)
	}
}

// TestProgramIdleHoldsNothing: a program whose pool has no task for 10 s
// adds no held time to its row: the time is the row's Idle, the snapshot
// says Paused meanwhile, and the row counts again once a task comes.
func TestProgramIdleHoldsNothing(t *testing.T) {
	p, err := pool.New(pool.Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, next := programOnFakeClock(t, p)
	release := busy(t, p)
	for range 8 {
		next()
	}
	release()
	waitFor(t, "the task to end", func() bool { return p.Stats().Completed == 1 })
	next() // the interval the task ended in: it had work
	snap := next()
	held := currentRow(t, snap).Held
	if !snap.Paused {
		t.Errorf("an idle pool's snapshot is not Paused")
	}
	for range 40 { // 10 s with no task
		snap = next()
	}
	r := currentRow(t, snap)
	if r.Held != held || r.Idle < 10*time.Second {
		t.Fatalf("after 10s idle: held %v (was %v), idle %v; want held unchanged, idle >= 10s", r.Held, held, r.Idle)
	}
	if j := r.JSON(); j.IdleS < 10 {
		t.Errorf("idle_s %v, want >= 10", j.IdleS)
	}
	defer busy(t, p)()
	next()
	snap = next()
	if r := currentRow(t, snap); snap.Paused || r.Held <= held {
		t.Errorf("with a task again: paused %v, held %v (was %v), want counting", snap.Paused, r.Held, held)
	}
}

// TestProgramServingIsNotIdle: a program whose pool has no task but whose
// routes answer requests (a load of /ping alone) holds its size: the
// requests are its work. Once they stop, the row is idle again.
func TestProgramServingIsNotIdle(t *testing.T) {
	p, err := pool.New(pool.Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var served atomic.Int64
	eps := func() []Endpoint { return []Endpoint{{Route: "/ping", Count: served.Load()}} }
	_, next := stepped(t, Config{Interval: 250 * time.Millisecond, Window: 5 * time.Second,
		Program: &Program{Name: "svc", Pool: p, Endpoints: eps}})
	var snap Snapshot
	for range 8 { // 2 s answering /ping, no pool task
		served.Add(10)
		snap = next()
	}
	if r := currentRow(t, snap); snap.Paused || r.Held < time.Second || r.Idle > 250*time.Millisecond {
		t.Fatalf("answering requests: paused %v, held %v, idle %v; want held, not idle", snap.Paused, r.Held, r.Idle)
	}
	held := currentRow(t, snap).Held
	for range 8 { // 2 s with no request and no task
		snap = next()
	}
	if r := currentRow(t, snap); !snap.Paused || r.Held > held+250*time.Millisecond || r.Idle < time.Second {
		t.Errorf("no requests: paused %v, held %v (was %v), idle %v; want idle", snap.Paused, r.Held, held, r.Idle)
	}
}

// TestProgramIgnoredResizeKeepsTheRealSize: a pool that takes a resize and
// keeps its size (ants ignores Tune on a pre-allocated pool) is shown at
// the size it has, its row in force, from the next sample.
func TestProgramIgnoredResizeKeepsTheRealSize(t *testing.T) {
	var running atomic.Bool
	m := pool.NewMeter(pool.MeterOptions{Size: func() int { return 2 }, Resize: func(int) error { return nil }})
	s, next := programOnFakeClock(t, m)
	release := make(chan struct{})
	defer close(release)
	go m.Wrap(func() { running.Store(true); <-release })() // work all along: the rows count
	waitFor(t, "the task to run", running.Load)
	next()
	if err := s.Apply(Action{Kind: SetWorkers, N: 4}); err != nil {
		t.Fatal(err)
	}
	snap := next()
	if r := currentRow(t, snap); r.Workers != 2 || snap.Workers != 2 {
		t.Fatalf("after a resize the pool ignored: current row %d, snapshot %d workers, want the pool's 2", r.Workers, snap.Workers)
	}
}

// TestProgramNamedLikeAScenarioIsAProgram: a program called "server"
// gets the program's headline (the Loop probe) and the CPU rule's
// suggestion, not the server scenario's ping and cores - 1.
func TestProgramNamedLikeAScenarioIsAProgram(t *testing.T) {
	pl := testPool(t, pool.Options{Size: 1})
	s, step := stepped(t, Config{Program: &Program{Name: "server", Pool: pl}})
	snap := step()
	if len(snap.Sizes) != 1 || snap.Sizes[0].HeadlineName != "probe" {
		t.Fatalf("rows %+v: want one row whose headline is the probe", snap.Sizes)
	}
	if n, _ := s.cpus.Suggest(false); snap.SuggestedWorkers != n {
		t.Fatalf("suggested %d, want the CPU rule's %d", snap.SuggestedWorkers, n)
	}
}
