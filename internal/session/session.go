// Package session owns one offtop run: the Loop, the pool, the probes, the
// scenario and the sampler. Readers take Snapshot values; writers send
// Actions through Apply. Nothing else reaches into the engine.
package session

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	guard "github.com/offtop/offtop/internal/crash"

	"github.com/offtop/offtop/internal/probe"
	"github.com/offtop/offtop/internal/sysinfo"
	"github.com/offtop/offtop/internal/workload"
	"github.com/offtop/offtop/pool"
)

// ErrAction is the error of an Action Apply refuses.
var ErrAction = errors.New("invalid action")

// Session is one run. Its methods are safe for concurrent use.
type Session struct {
	cfg   Config
	start time.Time
	// target is what the session runs: scenarios or a program (target.go).
	target target

	loop *probe.Loop
	// pool is what is sampled and resized: own, or a Program's.
	pool ProgramPool
	// own is the pool the session made, runs scenarios on and closes; nil
	// for a Program's.
	own   *pool.Pool
	lag   *probe.LagProbe
	sched *probe.SchedProbe
	sys   *sysinfo.Reader
	// machine reads the rest of the machine's CPU (Config.Machine).
	machine sysinfo.MachineReader
	// machineOwn is the reader New opened (closed at shutdown); nil when
	// Config gave one.
	machineOwn *sysinfo.ProcStat
	// cpus is read once at start: what the process may use (cgroup quota,
	// affinity); the quota of a running container rarely changes.
	cpus sysinfo.CPUs
	// sizes is the per-size accounting (sizes.go).
	sizes *sizes
	// search is the size search (search.go).
	search searcher

	// actions is the FIFO of Posted actions; one goroutine (control)
	// applies them in order, so keys pressed in a burst land in the order
	// pressed, and a slow one (a scenario switch) delays only those after it.
	actions chan posted

	// mu guards the control state below. It is held briefly, never while a
	// scenario starts or stops, so the sampler and readers never wait on a
	// switch.
	mu       sync.Mutex
	scen     *stopOnce
	scenName string
	workers  int
	// resizes counts the resizes Actions made: the sampler follows a size
	// the pool reports only if none came while it read it.
	resizes int64
	paused  bool
	// gmpSource says who set GOMAXPROCS: "runtime", "env" or "offtop".
	gmpSource string
	// scenStart is the pool's counts when scenName came on screen
	// (Pool.ScenarioStart).
	scenStart PoolCounts

	// histGen counts what empties the charts' history: r, and a switch of
	// scenario (each scenario's history is its own).
	histGen atomic.Int64

	// lastMu guards last, the newest sample.
	lastMu sync.Mutex
	last   Snapshot

	samples     chan Snapshot
	stop        chan struct{} // closed by Close: no more actions
	lastSample  chan struct{} // closed by Close once the scenario stopped: the sampler takes its last sample
	unpaused    chan struct{} // cap 1: the load was paused and is not now (wakeSampler)
	done        chan struct{} // closed when the sampler has exited
	controlDone chan struct{} // closed when the control goroutine has exited
	closeMu     sync.Once
}

// stopOnce makes a scenario's Stop safe to call twice: a switch whose new
// scenario fails to start, and whose old one fails to restart, leaves the
// stopped old one in place, and Close stops it again.
type stopOnce struct {
	workload.Workload
	once sync.Once
}

func (s *stopOnce) Stop() { s.once.Do(s.Workload.Stop) }

// New validates c and starts the run: Loop, pool, probes, scenario and
// sampler. The first sample is taken after one Interval.
func New(c Config) (*Session, error) {
	c = c.withDefaults()
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	tg, err := newTarget(&c)
	if err != nil {
		return nil, err
	}
	scen, err := tg.first(c)
	if err != nil {
		return nil, err
	}
	cpus := sysinfo.ReadCPUs("/")
	var machineOwn *sysinfo.ProcStat
	if c.Machine == nil {
		machineOwn = sysinfo.NewProcStat("/")
		c.Machine = machineOwn
	}
	if c.Workers < 0 {
		c.Workers = tg.startWorkers(c.Scenario, cpus)
	}

	s := &Session{
		cfg:         c,
		target:      tg,
		start:       c.Clock.Now(),
		loop:        probe.NewLoop(),
		sys:         sysinfo.NewReader(),
		machine:     c.Machine,
		machineOwn:  machineOwn,
		scenName:    c.Scenario,
		workers:     c.Workers,
		cpus:        cpus,
		gmpSource:   gomaxprocsSource(),
		samples:     make(chan Snapshot, 1024),
		stop:        make(chan struct{}),
		lastSample:  make(chan struct{}),
		unpaused:    make(chan struct{}, 1),
		done:        make(chan struct{}),
		controlDone: make(chan struct{}),
		actions:     make(chan posted, maxPending),
	}
	if s.pool = tg.pool(); s.pool == nil {
		own, err := pool.New(pool.Options{
			Size:     c.Workers,
			MaxQueue: c.MaxQueue,
			Inline:   s.loop.Post,
			Window:   c.Window,
			// A done callback's panic or a pool bug reaches offtop's crash
			// handler: terminal restored.
			PanicHandler: guard.Handle,
			Priority:     c.Priority,
		})
		if err != nil {
			s.loop.Close()
			s.sys.Close()
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		own.SetPerTask(c.PerTask)
		s.own, s.pool = own, own
	}
	if c.GOMAXPROCS > 0 {
		s.setGOMAXPROCS(func() { runtime.GOMAXPROCS(min(c.GOMAXPROCS, runtime.NumCPU())) })
		s.gmpSource = "offtop"
	}
	s.sizes = newSizes(c.Clock.Now, s.counters, c.Resolution, c.Window)
	s.sizes.machine = c.Machine.ReadMachine
	s.sizes.headline = tg.headline
	s.sizes.enter(s.sizeKey(), true)
	if c.Paused && !c.NoLoad { // the first row starts paused: it holds nothing
		done, cpu, ok := s.sizes.read()
		s.sizes.pauseAt(true, false, time.Time{}, done, cpu, ok)
	}
	post := tg.post()
	if post == nil {
		post = s.loop.Post
	}
	s.lag = probe.StartLagProbe(post, c.Resolution, c.Window)
	s.lag.Observe(s.sizes.observeProbe)
	s.sched = probe.StartSchedProbe(c.Resolution, c.Window)
	if c.Paused && !c.NoLoad { // before Start: the scenario's load never runs
		s.paused = true
		scen.Pause(true)
	}
	if c.NoLoad { // before Start, so not one request of the scenario's own goes out
		// The outside load is the load: the size in force is held, and
		// counts what the outside load does (sizes.pause is not called).
		s.paused = true
		scen.Pause(true)
	}
	if err := scen.Start(s.env()); err != nil {
		s.shutdown()
		return nil, fmt.Errorf("start %s: %w", c.Scenario, err)
	}
	s.scen = &stopOnce{Workload: scen}
	s.last = Snapshot{Schema: SchemaVersion,
		Sampling: Sampling{Interval: Millis(c.Interval), Resolution: Millis(c.Resolution), Window: Seconds(c.Window)},
		Machine:  Machine{NumCPU: runtime.NumCPU(), OthersCPUs: -1},
		Process:  Process{RSSBytes: -1, CPUPercent: -1}}
	s.lay(&s.last, s.readCtl(), s.workers)
	s.startSampler()
	go s.control()
	return s, nil
}

// env is what scenarios get: the Loop and the pool, nothing else. Only a
// scenario session has one (own).
func (s *Session) env() workload.Env {
	return workload.Env{
		Post:    s.loop.Post,
		Do:      s.loop.Do,
		Offload: s.own.Do,
		Submit:  s.own.Submit,
		Workers: func() int { return s.own.Stats().Size },
		PerTask: s.own.PerTask,
		Scale:   s.cfg.Scale,
		Window:  s.cfg.Window,

		Resolution: s.cfg.Resolution,
		LoopLag:    s.lag.Stats,

		SubmitTimeout: s.own.SubmitTimeout,
		Counts:        s.own.Counts,
		Headline:      s.sizes.observeHeadline,
		Served:        s.sizes.observeServed,
	}
}

// counters reads what a size row totals: pool tasks completed and the
// process's CPU time.
func (s *Session) counters() (int64, time.Duration, bool) {
	done := s.pool.Counts().Completed
	smp := s.sys.Read()
	return done, smp.CPU, smp.CPUKnown
}

// enterSize makes k the size row in force. Its observations count once
// the Loop has run what was queued on it before (a marker posted behind
// it), so the inline work of the size before is not charged to this one.
func (s *Session) enterSize(k sizeKey) {
	if st := s.sizes.enter(k, false); st != nil {
		s.loop.Post(func() { s.sizes.settle(st) })
	}
}

// sizeKey is the size row the control state names now.
func (s *Session) sizeKey() sizeKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	// At size 0 tasks run inline either way: one row.
	return sizeKey{s.scenName, s.workers, s.baseProcs(), s.workers > 0 && s.priorityOn()}
}

// priorityPool is a pool with priority workers (*pool.Pool): the
// session's own or a program's.
type priorityPool interface {
	Priority() bool
	SetPriority(on bool) error
	BaseProcs() int
}

// priorityOn reports whether the session's pool runs priority workers; a
// pool without them (a Meter) never does.
func (s *Session) priorityOn() bool {
	p, ok := s.pool.(priorityPool)
	return ok && p.Priority()
}

// baseProcs is GOMAXPROCS without the Ps the pool's priority workers
// added: the GOMAXPROCS a size row names.
func (s *Session) baseProcs() int {
	if p, ok := s.pool.(priorityPool); ok {
		return p.BaseProcs()
	}
	return runtime.GOMAXPROCS(0)
}

// setGOMAXPROCS runs set, a change of GOMAXPROCS, then gives priority
// workers their Ps again over the new base (pool.SetPriority), so a
// size row's GOMAXPROCS is what set chose.
func (s *Session) setGOMAXPROCS(set func()) {
	set()
	if p, ok := s.pool.(priorityPool); ok && p.Priority() {
		_ = p.SetPriority(true) // on already: it cannot fail
	}
}

// gomaxprocsSource is who set GOMAXPROCS at start: the GOMAXPROCS
// environment variable, or the runtime (which then keeps updating it).
func gomaxprocsSource() string {
	if os.Getenv("GOMAXPROCS") != "" {
		return "env"
	}
	return "runtime"
}

// Suggest is the pool size offtop suggests for scenario of the
// registered catalog on these CPUs, and the rule in one line
// (scenarioTarget.suggest).
func Suggest(scenario string, cpus sysinfo.CPUs) (int, string) {
	return scenarioTarget{cat: workload.Registered()}.suggest(scenario, cpus)
}

// StartWorkers is the pool size a run of scenario of the registered
// catalog starts with when --workers is not given
// (scenarioTarget.startWorkers).
func StartWorkers(scenario string, cpus sysinfo.CPUs) int {
	return scenarioTarget{cat: workload.Registered()}.startWorkers(scenario, cpus)
}

// Samples returns a channel receiving every sample the sampler takes, in
// order, closed by Close. Its buffer holds 1024 samples; a reader that falls
// further behind loses the oldest (and sees the gap in Elapsed).
func (s *Session) Samples() <-chan Snapshot { return s.samples }

// Snapshot returns the newest sample with the current control state (pool
// size, scenario, pause) laid over it, so an Action shows at once.
func (s *Session) Snapshot() Snapshot {
	s.lastMu.Lock()
	snap := s.last
	s.lastMu.Unlock()
	s.mu.Lock()
	c := s.readCtl()
	workers := s.workers
	s.mu.Unlock()
	s.lay(&snap, c, workers)
	return snap
}

// showLoad puts load, the scenario's load just changed, in the newest
// sample, so the screen says what [ or ] did at once, not a sample later
// (the rest of the sample's figures wait for the next one).
func (s *Session) showLoad(load string) {
	s.lastMu.Lock()
	s.last.Load = load
	s.lastMu.Unlock()
}

// ctl is the control state read at one moment (readCtl): what runs,
// the pool size Actions set, who set GOMAXPROCS and to what, the search.
type ctl struct {
	Run
	workers    int
	scenStart  PoolCounts
	gmpSource  string
	gomaxprocs int
	search     Search
}

// readCtl reads the control state. Callers hold mu; s.scen is set before
// the first call and never nil after.
func (s *Session) readCtl() ctl {
	return ctl{
		Run: Run{Scenario: s.scenName, Paused: s.paused, PerTask: s.own != nil && s.own.PerTask(),
			Priority: s.priorityOn(), Look: s.scen.Look()},
		workers: s.workers, scenStart: s.scenStart, gmpSource: s.gmpSource,
		gomaxprocs: runtime.GOMAXPROCS(0), // cheap: reads, sets nothing
		search:     s.search.state(),
	}
}

// lay writes c into snap, the one place a Snapshot's control state and
// Machine are assembled: what runs, the pool size workers (the sample's,
// or the control state's), the search, and the Machine from the CPUs read
// at start, c's GOMAXPROCS and the suggestion for them. snap's NumCPU and
// others reading (the sample's own) are kept.
func (s *Session) lay(snap *Snapshot, c ctl, workers int) {
	snap.Run, snap.Workers, snap.ScenarioStart, snap.Search = c.Run, workers, c.scenStart, c.search
	m := Machine{
		GOMAXPROCS: c.gomaxprocs, NumCPU: snap.NumCPU,
		CPULimit: CPUQuota(s.cpus.Quota), AffinityCPUs: CPUCount(s.cpus.Affinity),
		GOMAXPROCSSource: c.gmpSource, RuntimeGOMAXPROCS: s.cpus.RuntimeDefaultGOMAXPROCS(),
		UsableCPUs: s.cpus.Usable(), CPUWarning: s.cpus.Warning,
		OthersCPUs: snap.OthersCPUs, OthersOf: snap.OthersOf, MachineBusy: snap.MachineBusy,
	}
	cpus := s.cpus
	if c.gmpSource != "runtime" { // a smaller machine emulated: suggest for it
		cpus.Procs = c.gomaxprocs
	}
	m.SuggestedWorkers, m.SuggestedRule = s.target.suggest(c.Scenario, cpus)
	// Oversubscribed: more workers than the CPUs they can run on, the
	// usable CPUs or GOMAXPROCS if lower (g emulates a smaller machine).
	usable := m.UsableCPUs
	if m.GOMAXPROCS > 0 {
		usable = math.Min(usable, float64(m.GOMAXPROCS))
	}
	m.Oversubscribed = float64(workers) > usable
	snap.Machine = m
}

// Close stops the scenario, takes a last sample, then stops the probes,
// the pool and the Loop, in that order, and closes Samples. The last
// sample comes after the scenario has stopped, so it holds what the stop
// ended (a Loop stall cut short, read by the probe) and the final counts.
// Safe to call twice; returns when all is down.
func (s *Session) Close() {
	s.closeMu.Do(func() {
		s.search.stop(true)
		s.search.wg.Wait()
		close(s.stop)
		<-s.controlDone
		s.scen.Stop() // the control goroutine is gone: nobody swaps scen now
		s.settleLoop(lastSampleWait)
		close(s.lastSample)
		<-s.done
		s.shutdown()
		if s.gmpSource == "offtop" {
			runtime.SetDefaultGOMAXPROCS() // leave the process as we found it
		}
		close(s.samples)
	})
}

// lastSampleWait bounds how long Close waits, before the last sample, for
// the Loop to run what is queued on it (the probe's sample after a stall).
const lastSampleWait = 200 * time.Millisecond

// settleLoop waits, at most d, until the Loop has run the callbacks queued
// on it now and the probe has recorded its sample in flight, so the last
// sample holds a stall that Stop just cut short.
func (s *Session) settleLoop(d time.Duration) {
	deadline := time.Now().Add(d)
	ran := make(chan struct{})
	s.loop.Post(func() { close(ran) })
	select {
	case <-ran:
	case <-time.After(d):
		return // the Loop is still blocked: the last sample says so (probe_stalled_ms)
	}
	for s.lag.Stats().Stalled > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
}

func (s *Session) shutdown() {
	s.lag.Stop()
	s.sched.Stop()
	if s.own != nil {
		s.own.Close()
	}
	s.loop.Close()
	s.sys.Close()
	if s.machineOwn != nil {
		s.machineOwn.Close()
	}
}
