package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/testkit"

	"github.com/offtop/offtop/internal/scenarios"
	"go.uber.org/goleak"
)

// waitFor polls cond until it holds (testkit.Patience).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, what, 0, cond)
}

// onFake is newSession on a fake clock (the sampler's, the search's and
// the scenarios' schedules; the probes and the pool keep real time): no
// sample comes unless the test moves it (testkit.StepUntil).
func onFake(t *testing.T, c Config) (*Session, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(time.Now())
	c.Clock = clk
	return newSession(t, c), clk
}

// stepped is onFake and step, which moves the clock one interval and
// returns the sample that brings.
func stepped(t *testing.T, c Config) (*Session, func() Snapshot) {
	t.Helper()
	s, clk := onFake(t, c)
	iv := s.cfg.Interval
	return s, func() Snapshot {
		t.Helper()
		clk.Advance(iv) // the sampler set its wait before its last sample went out
		select {
		case snap := <-s.Samples():
			return snap
		case <-time.After(20 * time.Second):
			t.Fatal("no sample after the clock moved")
		}
		return Snapshot{}
	}
}

func newSession(t *testing.T, c Config) *Session {
	t.Helper()
	if c.Interval == 0 {
		c.Interval = 20 * time.Millisecond
	}
	if c.Window == 0 {
		c.Window = time.Second
	}
	if c.Machine == nil { // a quiet machine: a test's outcome is not the neighbours'
		c.Machine = &fakeMachine{clk: clock.Or(c.Clock), cpus: 2}
	}
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestCountsAddUpAtEverySample(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, step := stepped(t, Config{Scenario: "count", Workers: 2, Scale: 0.01})
	for n := range 30 {
		snap := step()
		if got := snap.Completed + snap.Failed + snap.TimedOut + snap.Canceled + snap.Running + snap.QueueDepth; !snap.Balanced() {
			t.Fatalf("sample %d: completed+failed+running+queued = %d, submitted = %d", n, got, snap.Submitted)
		}
		if len(snap.WorkerBusy) != len(snap.WorkerSlots) {
			t.Fatalf("busy %d values for %d workers", len(snap.WorkerBusy), len(snap.WorkerSlots))
		}
		for _, b := range append(snap.WorkerBusy, snap.WorkerOnCPU...) {
			if b < 0 || b > 1 {
				t.Fatalf("fraction %v outside 0..1", b)
			}
		}
	}
	s.Close()
}

func TestEveryActionChangesTheSnapshot(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, step := stepped(t, Config{Scenario: "stall", Workers: 1})
	apply := func(a Action) Snapshot {
		t.Helper()
		if err := s.Apply(a); err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
		return s.Snapshot()
	}
	if got := apply(Action{Kind: SetWorkers, N: 4}).Workers; got != 4 {
		t.Errorf("SetWorkers 4: workers %d", got)
	}
	if got := apply(Action{Kind: AddWorkers, N: 1}).Workers; got != 5 {
		t.Errorf("AddWorkers +1: workers %d", got)
	}
	if got := apply(Action{Kind: SetWorkers, N: 0}).Workers; got != 0 {
		t.Errorf("SetWorkers 0: workers %d", got)
	}
	if got := apply(Action{Kind: AddWorkers, N: -1}).Workers; got != 0 {
		t.Errorf("AddWorkers -1 at 0: workers %d, want clamped 0", got)
	}
	if err := s.Apply(Action{Kind: SetWorkers, N: MaxWorkers + 1}); err == nil {
		t.Error("SetWorkers 257: no error")
	}
	if !apply(Action{Kind: TogglePause}).Paused {
		t.Error("TogglePause: not paused")
	}
	before := step().Load
	if before == "" {
		t.Fatal("a sample without the load text")
	}
	if got := apply(Action{Kind: Load, N: 1}).Load; got == before { // shown at once, no sample needed
		t.Errorf("Load +1: load text still %q", got)
	}
	if got := apply(Action{Kind: NextScenario}).Scenario; got == "stall" {
		t.Errorf("NextScenario: still %s", got)
	}
	// The Loop probe ticks in real time: wait for ticks, then sample them.
	waitFor(t, "probe ticks", func() bool { return s.lag.Stats().CorrectedAll.Count >= 20 })
	c := step().ProbeTotal.Count
	if c < 20 {
		t.Fatalf("a sample after 20 probe ticks counts %d", c)
	}
	apply(Action{Kind: Reset})
	if got := step().ProbeTotal.Count; got >= c {
		t.Errorf("the sample after reset counts %d probe samples, %d before it", got, c)
	}
	s.Close()
}

func TestHeadlessJSONHasTheDesignFields(t *testing.T) {
	_, step := stepped(t, Config{Scenario: "stall", Workers: 1})
	snap := step()
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range RequiredJSONFields {
		if _, ok := m[k]; !ok {
			t.Errorf("missing %q in %s", k, b)
		}
	}
	for _, k := range []string{"probe", "probe_raw", "probe_total", "sched", "task"} {
		o, _ := m[k].(map[string]any)
		for _, f := range []string{"p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms", "count"} {
			if _, ok := o[f]; !ok {
				t.Errorf("%s lacks %s", k, f)
			}
		}
	}
}

// timed_out, abandoned and stuck leave as JSON numbers, apart from failed.
func TestJSONTimeoutFields(t *testing.T) {
	b, err := json.Marshal(Snapshot{Pool: Pool{Submitted: 10, Completed: 4, Failed: 3, TimedOut: 2, Abandoned: 1, Stuck: 3, Running: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]float64{"timed_out": 2, "abandoned": 1, "stuck": 3, "failed": 3} {
		if got, ok := m[k].(float64); !ok || got != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
}

func TestEmptySummaryEncodesNull(t *testing.T) {
	b, _ := json.Marshal(Snapshot{}.Probe)
	if string(b) != `{"p50_ms":null,"p90_ms":null,"p99_ms":null,"p999_ms":null,"max_ms":null,"count":0}` {
		t.Errorf("empty summary: %s", b)
	}
}

func TestBadConfig(t *testing.T) {
	for _, c := range []Config{
		{Scenario: "nope"},
		{Interval: time.Microsecond},
		{Resolution: time.Nanosecond},
		{Workers: MaxWorkers + 1},
		{Scale: -1},
		{Scale: MaxScale + 1},
		{Interval: time.Second, Window: 500 * time.Millisecond},
	} {
		if s, err := New(c); err == nil {
			s.Close()
			t.Errorf("%+v: no error", c)
		} else if !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v is not ErrConfig", c, err)
		}
	}
}

// TestValidateNamesTheField: Validate checks a Config as it is (a zero
// field is refused, not defaulted) and names the field out of bounds.
func TestValidateNamesTheField(t *testing.T) {
	ok := Config{Interval: DefaultInterval, Resolution: DefaultResolution, Window: DefaultWindow, Scale: 1, Workers: -1}
	if err := ok.Validate(); err != nil {
		t.Fatalf("%+v: %v", ok, err)
	}
	for _, c := range []struct {
		edit  func(*Config)
		field string
		msg   string
	}{
		{func(c *Config) { c.Interval = 0 }, "interval", "interval: out of range 1ms..: 0s"},
		{func(c *Config) { c.Resolution = 99 * time.Microsecond }, "resolution", "resolution: out of range 100µs..: 99µs"},
		{func(c *Config) { c.Window = time.Millisecond }, "window", "window: shorter than interval 250ms: 1ms"},
		{func(c *Config) { c.Scale = 0 }, "scale", "scale: out of range (0, 1000]: 0"},
		{func(c *Config) { c.Scale = math.NaN() }, "scale", "scale: out of range (0, 1000]: NaN"},
		{func(c *Config) { c.Workers = MaxWorkers + 1 }, "workers", "workers: out of range 0..256: 257"},
	} {
		bad := ok
		c.edit(&bad)
		var ce *ConfigError
		if err := bad.Validate(); !errors.As(err, &ce) || ce.Field != c.field || err.Error() != c.msg {
			t.Errorf("%+v: %v, want a ConfigError %q", bad, err, c.msg)
		}
	}
}

// TestTabStormKeepsOrderAndSampling pins the fix for a dashboard frozen by
// tab pressed in a burst: Post returns at once, switches apply in order on
// the control goroutine (the sampler no longer takes a lock a switch
// holds), and a full cycle ends on the first scenario.
func TestTabStormKeepsOrderAndSampling(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newSession(t, Config{Scenario: "stall", Workers: 1, Scale: 0.05})
	names := scenarios.Names()
	var results []<-chan error
	for range names {
		results = append(results, s.Post(Action{Kind: NextScenario}))
	}
	samples := 0
	for i, res := range results {
	wait:
		for {
			select {
			case err := <-res:
				if err != nil {
					t.Fatalf("switch %d: %v", i, err)
				}
				break wait
			case <-s.Samples():
				samples++
			}
		}
	}
	if got := s.Snapshot().Scenario; got != "stall" {
		t.Errorf("after %d switches: %s, want stall again", len(names), got)
	}
	t.Logf("%d samples arrived during %d switches", samples, len(names))
	s.Close()
}

// TestScenarioKeysReachTheirScenario: s/S step breakeven's payload and c
// toggles io's CPU work; the scenario's load text says so at the next sample.
func TestScenarioKeysReachTheirScenario(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, c := range []struct {
		scenario string
		a        Action
	}{
		{"breakeven", Action{Kind: Turn, Key: "S"}},
		{"io", Action{Kind: Turn, Key: "c"}},
	} {
		s, step := stepped(t, Config{Scenario: c.scenario, Workers: 1, Scale: 0.05})
		before := step().Load
		if err := s.Apply(c.a); err != nil {
			t.Fatal(err)
		}
		if got := step().Load; got == before {
			t.Errorf("%s: load text still %q at the next sample", c.scenario, got)
		}
		s.Close()
	}
}

// TestGOMAXPROCSKeys: g lowers GOMAXPROCS and says offtop set it; = gives
// it back to the runtime. Resizing the pool never changes it.
func TestGOMAXPROCSKeys(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs")
	}
	defer runtime.SetDefaultGOMAXPROCS()
	s, _ := stepped(t, Config{Scenario: "stall", Workers: 1}) // no sample needed: Snapshot lays the control state over
	before := s.Snapshot().GOMAXPROCS
	if err := s.Apply(Action{Kind: SetWorkers, N: 8}); err != nil || s.Snapshot().GOMAXPROCS != before {
		t.Fatalf("resizing the pool changed GOMAXPROCS: %v", err)
	}
	if err := s.Apply(Action{Kind: AddGOMAXPROCS, N: -64}); err != nil {
		t.Fatal(err)
	}
	if snap := s.Snapshot(); snap.GOMAXPROCS != 1 || snap.GOMAXPROCSSource != "offtop" {
		t.Errorf("after g: GOMAXPROCS %d set by %q, want 1 by offtop", snap.GOMAXPROCS, snap.GOMAXPROCSSource)
	}
	if err := s.Apply(Action{Kind: AddGOMAXPROCS, N: 64}); err != nil || s.Snapshot().GOMAXPROCS != runtime.NumCPU() {
		t.Errorf("G past NumCPU: %d, %v", s.Snapshot().GOMAXPROCS, err)
	}
	if err := s.Apply(Action{Kind: DefaultGOMAXPROCS}); err != nil {
		t.Fatal(err)
	}
	if snap := s.Snapshot(); snap.GOMAXPROCSSource != "runtime" || snap.GOMAXPROCS != snap.RuntimeGOMAXPROCS {
		t.Errorf("after =: GOMAXPROCS %d by %q, runtime default %d", snap.GOMAXPROCS, snap.GOMAXPROCSSource, snap.RuntimeGOMAXPROCS)
	}
}

// TestResizeBurstAppliesAsOne: resizes waiting back to back behind a slow
// action apply as one resize that ends where they would have, one after
// the other (a size row for the end size only, not for each size passed
// through), each answered; an invalid size among them is refused alone,
// and the actions keep their order.
func TestResizeBurstAppliesAsOne(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, step := stepped(t, Config{Scenario: "stall", Workers: 1})
	var res []<-chan error
	res = append(res, s.Post(Action{Kind: NextScenario}), s.Post(Action{Kind: NextScenario})) // slow: the rest waits
	want := 1
	for range 20 {
		res = append(res, s.Post(Action{Kind: AddWorkers, N: 1}))
		want++
	}
	bad := len(res)
	res = append(res, s.Post(Action{Kind: SetWorkers, N: MaxWorkers + 1}))
	for range 3 {
		res = append(res, s.Post(Action{Kind: AddWorkers, N: -2}))
		want -= 2
	}
	for i, r := range res {
		if err := <-r; (err != nil) != (i == bad) {
			t.Errorf("action %d: %v", i, err)
		}
	}
	if w := s.Snapshot().Workers; w != want {
		t.Errorf("workers %d after the burst, want %d", w, want)
	}
	snap := step()
	if !slices.ContainsFunc(snap.Sizes, func(r SizeRow) bool { return r.Scenario == snap.Scenario && r.Workers == want }) {
		t.Fatalf("the sample after the burst has no row of %d workers: %+v", want, snap.Sizes)
	}
	rows := 0
	for _, r := range snap.Sizes {
		if r.Scenario == snap.Scenario {
			rows++
		}
	}
	if rows > 10 {
		t.Errorf("%d size rows in %s after a burst of 23 resizes: each applied in turn", rows, snap.Scenario)
	}
	s.Close()
}

// TestCloseAnswersWaitingActions: Close does not apply the actions still
// waiting: they are answered "session closed", and those applied come
// first, in order.
func TestCloseAnswersWaitingActions(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newSession(t, Config{Scenario: "stall", Workers: 1})
	var res []<-chan error
	for range 50 {
		res = append(res, s.Post(Action{Kind: NextScenario}))
	}
	s.Close()
	closed := 0
	for i, r := range res {
		select {
		case err := <-r:
			if err != nil {
				closed++
			} else if closed > 0 {
				t.Fatalf("action %d applied after one answered closed", i)
			}
		default:
			t.Fatalf("action %d not answered after Close", i)
		}
	}
	if closed == 0 {
		t.Error("Close applied all 50 scenario switches waiting")
	}
}

// TestPoolCountsPerScenario: after a tab from crash, the screen's counts
// (SinceScenario) start at 0 for the next scenario, while the JSON's
// cumulative counts go on and still balance (the newcomer saw io, login,
// stall and server all say "failed 4" after crash).
func TestPoolCountsPerScenario(t *testing.T) {
	s, clk := onFake(t, Config{Scenario: "crash", Workers: 2, Scale: 0.01})
	testkit.StepUntil(t, clk, "a failed task in crash", func() bool { return s.Snapshot().Failed > 0 })
	if err := s.Apply(Action{Kind: NextScenario}); err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	if snap.Scenario != "io" || snap.ScenarioStart.Failed == 0 {
		t.Fatalf("after tab: scenario %s, start %+v", snap.Scenario, snap.ScenarioStart)
	}
	failed := snap.ScenarioStart.Failed
	testkit.StepUntil(t, clk, "io's samples", func() bool {
		n := s.Snapshot()
		return n.Completed > n.ScenarioStart.Completed+5
	})
	n := s.Snapshot()
	if h := n.SinceScenario(); h.Failed != 0 || h.Completed <= 0 {
		t.Errorf("io's own counts %+v, want no failures and some completed", h)
	}
	if n.Failed < failed || !n.Balanced() {
		t.Errorf("cumulative counts %+v (failed %d at the tab): not since the start, or unbalanced", n.Pool, failed)
	}
	b, err := json.Marshal(n)
	if err != nil || !bytes.Contains(b, []byte(fmt.Sprintf(`"failed":%d`, n.Failed))) {
		t.Errorf("JSON lost the cumulative failed %d: %v %s", n.Failed, err, b)
	}
}

// TestLoadShowsAtOnce: after [ or ] the Snapshot carries the scenario's
// new load text at once, before the next sample (the fake clock moves to
// the first sample only, so no other comes).
func TestLoadShowsAtOnce(t *testing.T) {
	clk := clock.NewFake(time.Now())
	s := newSession(t, Config{Scenario: "stall", Workers: 1, Interval: 250 * time.Millisecond, Clock: clk})
	clk.Advance(250 * time.Millisecond) // the first sample, and no other
	waitFor(t, "the first sample with the load text", func() bool { return s.Snapshot().Load != "" })
	before := s.Snapshot().Load
	if err := s.Apply(Action{Kind: Load, N: 1}); err != nil {
		t.Fatal(err)
	}
	if after := s.Snapshot().Load; after == before {
		t.Errorf("load text after ]: %q, unchanged", after)
	}
}

// TestTaskRunInTheStream: the stream has the tasks' run time (start to
// end) beside their queue wait and submit-to-end, over the same tasks:
// its median is within the longest submit-to-end.
func TestTaskRunInTheStream(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, step := stepped(t, Config{Scenario: "count", Workers: 1, Scale: 0.05, Window: 30 * time.Second})
	var snap Snapshot
	for snap.Task.Count < 5 {
		snap = step()
	}
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var line struct {
		Task    map[string]*float64 `json:"task"`
		TaskRun map[string]*float64 `json:"task_run"`
	}
	if err := json.Unmarshal(b, &line); err != nil {
		t.Fatal(err)
	}
	run, task := line.TaskRun, line.Task
	if run["count"] == nil || *run["count"] <= 0 || run["p50_ms"] == nil || *run["p50_ms"] <= 0 || *run["p50_ms"] > *task["max_ms"] {
		t.Errorf("task_run %v beside task %v", fmtMap(run), fmtMap(task))
	}
	s.Close()
}

func fmtMap(m map[string]*float64) string {
	var b bytes.Buffer
	for k, v := range m {
		if v == nil {
			fmt.Fprintf(&b, "%s:null ", k)
		} else {
			fmt.Fprintf(&b, "%s:%g ", k, *v)
		}
	}
	return b.String()
}

// TestFinalSampleIsOverTheRun: the last sample, taken as the session
// closes, is marked final (no other is), and its interval figures are
// over the whole run: the process's CPU share and the Loop's busy share
// lie within the range of the samples before it, which tile the run, where
// a share over the moment of shutdown (about 1 ms) read 99-130% of a core.
func TestFinalSampleIsOverTheRun(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := New(Config{Scenario: "stall", Workers: 1, Interval: 50 * time.Millisecond, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var snaps []Snapshot
	stalls := func(s Snapshot) float64 {
		for _, r := range s.Readouts {
			if r.Key == "stalls" {
				return r.Value
			}
		}
		return 0
	}
	for len(snaps) == 0 || stalls(snaps[len(snaps)-1]) < 2 {
		snaps = append(snaps, <-s.Samples())
	}
	s.Close()
	for snap := range s.Samples() {
		snaps = append(snaps, snap)
	}
	last, before := snaps[len(snaps)-1], snaps[:len(snaps)-1]
	if !last.Final {
		t.Fatal("the last sample is not marked final")
	}
	cpuLo, cpuHi, loopLo, loopHi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, b := range before {
		if b.Final {
			t.Fatalf("t=%v: a sample before the last is marked final", b.Elapsed)
		}
		cpuLo, cpuHi = min(cpuLo, float64(b.CPUPercent)), max(cpuHi, float64(b.CPUPercent))
		loopLo, loopHi = min(loopLo, float64(b.LoopBusy)), max(loopHi, float64(b.LoopBusy))
	}
	if c := float64(last.CPUPercent); c < cpuLo-1 || c > cpuHi+1 {
		t.Errorf("final cpu_percent %.1f, the samples before read %.1f..%.1f", c, cpuLo, cpuHi)
	}
	if l := float64(last.LoopBusy); l < loopLo-0.01 || l > loopHi+0.01 || l == 0 {
		t.Errorf("final loop_busy %.3f, the samples before read %.3f..%.3f", l, loopLo, loopHi)
	}
}

// TestPausedIntervalSpacesPausedSamples: with PausedInterval 1s over an
// Interval of 100ms, a paused scenario is sampled once a second (the
// due times between not counted missed); after space, every 100ms again.
// Stepping the fake clock from one waiter to the next lands on each
// sample's due time.
func TestPausedIntervalSpacesPausedSamples(t *testing.T) {
	const iv, piv = 100 * time.Millisecond, time.Second
	s, clk := onFake(t, Config{Scenario: "stall", Workers: 1, Interval: iv, PausedInterval: piv, Paused: true})
	// next steps the clock from waiter to waiter until a sample comes: a
	// step may fire a wait the sampler gave up (on space), which brings
	// none.
	next := func() Snapshot {
		t.Helper()
		for range 10 {
			if _, ok := clk.Step(20 * time.Second); !ok {
				t.Fatal("nothing waits on the fake clock")
			}
			select {
			case snap := <-s.Samples():
				return snap
			case <-time.After(2 * time.Second):
			}
		}
		t.Fatal("no sample after 10 steps of the clock")
		return Snapshot{}
	}
	gaps := func(n int) (out []time.Duration, last Snapshot) {
		t.Helper()
		prev := next()
		for range n {
			last = next()
			out = append(out, time.Duration(last.Elapsed-prev.Elapsed))
			prev = last
		}
		return out, last
	}
	paused, last := gaps(4)
	for _, g := range paused {
		if g < piv-iv || g > piv {
			t.Errorf("paused: samples %v apart, want %v..%v (all: %v)", g, piv-iv, piv, paused)
		}
	}
	if !last.Paused || last.SamplesMissed != 0 {
		t.Errorf("paused %v, samples missed %d; want paused, 0", last.Paused, last.SamplesMissed)
	}
	if err := s.Apply(Action{Kind: TogglePause}); err != nil {
		t.Fatal(err)
	}
	// The sampler waits again, from the next 100ms due time, beside the
	// 1s wait it gave up (and the scenario's own).
	waitFor(t, "the sampler's wait for the next 100ms due time", func() bool {
		d, ok := clk.Earliest()
		return ok && d <= iv
	})
	running, last := gaps(6)
	for _, g := range running[1:] { // the first spans the resume
		if g != iv {
			t.Errorf("running: samples %v apart, want %v (all: %v)", g, iv, running)
		}
	}
	if running[0] > piv {
		t.Errorf("the first sample after space came %v after the last paused one, over %v", running[0], piv)
	}
	if last.Paused || last.SamplesMissed != 0 {
		t.Errorf("paused %v, samples missed %d after space; want running, 0", last.Paused, last.SamplesMissed)
	}
}
