package session

import (
	"math"
	"time"

	guard "github.com/offtop/offtop/internal/crash"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/pace"
	"github.com/offtop/offtop/internal/probe"
	"github.com/offtop/offtop/internal/sysinfo"
	"github.com/offtop/offtop/pool"
)

// sampler holds what one sample needs from the previous one. Only the
// sampler goroutine touches it.
type sampler struct {
	pool   pool.Stats
	loop   probe.LoopStats
	sys    sysinfo.Sample
	at     time.Time
	hist   history
	gen    int64   // Session.histGen the history above belongs to
	done   []point // completed counts over the last window, oldest first
	missed int64   // sample times skipped because a sample ran late
	// answered is the requests a program's routes had answered at the
	// last sample (followProgram).
	answered int64
	// start is the readings at the start: the last sample's interval
	// figures are over the whole run.
	start struct {
		pool pool.Stats
		loop probe.LoopStats
		sys  sysinfo.Sample
		at   time.Time
	}
	// mach is the machine readings over about the last second, oldest
	// first.
	mach []sysinfo.MachineSample
}

// startSampler primes the sampler and sets the wait for the first sample
// (before New returns, so a test's fake clock, moved after New, wakes it),
// then starts its goroutine.
func (s *Session) startSampler() {
	sm := &sampler{}
	sm.prime(s)
	due := s.cfg.Clock.After(s.cfg.Interval)
	go s.run(sm, due)
}

// run is the sampler goroutine: one sample every Interval, never on the
// Loop, and a last one when Close asks (lastSample). due is the wait for
// the first.
func (s *Session) run(sm *sampler, due <-chan time.Time) {
	defer guard.Recover() // a bug here reaches offtop's crash handler: terminal restored
	defer close(s.done)
	// Samples are due at t0 + k*interval (never time.Ticker, which drops
	// ticks silently); a sample that runs late skips the due times it
	// passed and counts them in SamplesMissed.
	clk := s.cfg.Clock
	t0, k := sm.at, int64(1)
	for last := false; !last; {
		select {
		case <-s.lastSample:
			last = true
		case <-due:
		case <-s.unpaused:
			if s.cfg.PausedInterval <= s.cfg.Interval {
				continue // never spaced out: the wait stands
			}
			// Back to every Interval from the next due time, without a
			// sample now: those skipped while paused were not missed.
			k = nextDue(clock.Since(clk, t0), s.cfg.Interval, 0)
			due = clk.After(t0.Add(time.Duration(k) * s.cfg.Interval).Sub(clk.Now()))
			continue
		}
		snap := sm.take(s, last)
		elapsed := clock.Since(clk, t0)
		next := nextDue(elapsed, s.cfg.Interval, k)
		sm.missed += next - k - 1
		snap.SamplesMissed = sm.missed
		k = next
		if snap.Paused && snap.Remote == "" && s.cfg.PausedInterval > s.cfg.Interval {
			// Paused: the next due time PausedInterval on, or the first after it.
			k = nextDue(elapsed+s.cfg.PausedInterval-s.cfg.Interval, s.cfg.Interval, k-1)
		}
		// The next wait is set before the sample is out, so a reader that
		// moves a fake clock on seeing it always wakes the sampler.
		due = clk.After(t0.Add(time.Duration(k) * s.cfg.Interval).Sub(clk.Now()))
		s.lastMu.Lock()
		s.last = snap
		s.lastMu.Unlock()
		PushNewest(s.samples, snap) // reader far behind: the oldest goes
	}
}

func (sm *sampler) prime(s *Session) {
	sm.pool = s.pool.Stats()
	sm.loop = s.loop.Stats()
	sm.sys = s.sys.Read()
	sm.at = s.cfg.Clock.Now()
	sm.done = []point{{sm.at, sm.pool.Completed}}
	sm.start.pool, sm.start.loop, sm.start.sys, sm.start.at = sm.pool, sm.loop, sm.sys, sm.at
	sm.mach = []sysinfo.MachineSample{s.machine.ReadMachine()}
}

// othersWindow is the span the live others figure is over: at 250 ms a
// sample's /proc/stat moves by 50 ticks of 10 ms on 2 CPUs, too coarse
// alone.
const othersWindow = time.Second

// others adds m and returns the others' CPUs over about the last
// othersWindow, and the CPUs the reading covers; -1 when unknown.
func (sm *sampler) others(m sysinfo.MachineSample) (float64, int) {
	sm.mach = append(sm.mach, m)
	i := 0
	for i < len(sm.mach)-2 && m.At.Sub(sm.mach[i+1].At) >= othersWindow {
		i++
	}
	sm.mach = sm.mach[i:]
	v, ok := sysinfo.OthersCPUs(sm.mach[0], m)
	if !ok {
		return -1, m.CPUs
	}
	return v, m.CPUs
}

// nextDue is the index of the first due time t0 + n*period strictly after
// elapsed, and at least k+1: a pure function of elapsed time.
func nextDue(elapsed, period time.Duration, k int64) int64 {
	next, _ := pace.Every{Period: period}.Next(elapsed, k)
	return next
}

// take reads every source once and builds a Snapshot. The final one (Close
// asked for it: Sampling.Final) gives its interval figures (cpu_percent,
// loop_busy, worker_busy, worker_oncpu) over the whole run, not over the
// moment since the sample before.
func (sm *sampler) take(s *Session, final bool) Snapshot {
	now := s.cfg.Clock.Now()
	s.mu.Lock()
	resizes := s.resizes // before ps: a resize after it is not in ps
	s.mu.Unlock()
	ps := s.pool.Stats()
	ls := s.loop.Stats()
	sys := s.sys.Read()
	lag := s.lag.Stats()
	sch := s.sched.Stats()
	endpoints := s.target.sampled(s, sm, ps, resizes)
	// The control state and the scenario it names, read together; Status
	// is called outside mu (a switch may be stopping this scenario now).
	s.mu.Lock()
	ctl := s.readCtl()
	scen := s.scen
	s.mu.Unlock()
	st := scen.Status()
	for _, r := range st.Readouts {
		if r.Key == "answer_ok" && r.Known {
			s.sizes.answer(ctl.Scenario, r.Value != 0)
		}
	}
	// A GOMAXPROCS the runtime changed by itself starts a row too.
	if k, changed := s.sizes.withGOMAXPROCS(s.baseProcs()); changed {
		s.enterSize(k)
	}

	prevPool, prevLoop, prevSys, prevAt := sm.pool, sm.loop, sm.sys, sm.at
	if final {
		prevPool, prevLoop, prevSys, prevAt = sm.start.pool, sm.start.loop, sm.start.sys, sm.start.at
	}
	dt := now.Sub(prevAt)
	busy, oncpu := pool.Utilization(prevPool, ps)
	slots := make([]int, len(ps.Workers))
	retiring := make([]bool, len(ps.Workers))
	for i, w := range ps.Workers {
		slots[i], retiring[i] = w.Slot, w.Retiring
	}
	snap := Snapshot{
		Schema:  SchemaVersion,
		Elapsed: Seconds(now.Sub(s.start)),
		Machine: Machine{NumCPU: sys.NumCPU},
		Status:  Status{Load: st.Load, Readouts: st.Readouts},
		Pool: Pool{
			QueueDepth:       ps.Queued,
			Submitted:        ps.Submitted,
			Completed:        ps.Completed,
			Failed:           ps.Failed,
			Running:          ps.Running,
			Rejected:         ps.Rejected,
			Replaced:         ps.Replaced,
			TimedOut:         ps.TimedOut,
			Canceled:         ps.Canceled,
			Abandoned:        ps.Abandoned,
			Stuck:            ps.Stuck,
			ThroughputPerSec: Rate(sm.throughput(now, ps.Completed, s.cfg.Window)),
			WorkerSlots:      slots,
			WorkerBusy:       busy,
			WorkerOnCPU:      oncpu,
			WorkerRetiring:   retiring,
			Task:             ps.Total,
			TaskWait:         ps.Wait,
			TaskRun:          ps.Run,
		},
		Loop:    Loop{LoopBusy: loopBusy(s.target, ls.Busy-prevLoop.Busy, dt), LoopQueued: ls.Queued},
		Process: Process{CPUPercent: -1, RSSBytes: Bytes(sys.RSS), Goroutines: sys.Goroutines},
		Probes: Probes{
			Probe:        lag.Corrected,
			ProbeRaw:     lag.Raw,
			ProbeTotal:   lag.CorrectedAll,
			ProbeMissed:  lag.Missed,
			ProbeStalled: Millis(lag.Stalled),
			Sched:        sch.Corrected,
			SchedRuntime: sch.Runtime,
		},
		Sampling: Sampling{Interval: Millis(s.cfg.Interval), Resolution: Millis(s.cfg.Resolution), Window: Seconds(s.cfg.Window), Final: final},
	}
	if f, ok := sysinfo.CPUFraction(prevSys, sys); ok {
		snap.CPUPercent = Percent(100 * f)
	}
	if sys.CPUKnown {
		snap.CPUSeconds = CPUTime(sys.CPU.Seconds())
	}
	if g := s.histGen.Load(); g != sm.gen {
		sm.hist.reset()
		sm.gen = g
	}
	p99 := math.NaN()
	if sec := s.sizes.second.Window(); sec.Count > 0 {
		p99 = float64(sec.P99) / float64(time.Millisecond)
	}
	sm.hist.add(&snap, p99, float64(ps.Queued), float64(ps.Size))
	snap.Headline = headlineOf(s.target.headline(ctl.Scenario), lag.Corrected, s.sizes.window.Window())
	mach := s.machine.ReadMachine()
	snap.Sizes = s.sizes.snapshot(mach)
	snap.Endpoints = endpoints

	sm.pool, sm.loop, sm.sys, sm.at = ps, ls, sys, now
	others, of := sm.others(mach)
	snap.OthersCPUs, snap.OthersOf = OptCPUs(others), of
	snap.MachineBusy = others >= 0 && sysinfo.Busy(others, of)
	s.lay(&snap, ctl, ps.Size) // ps.Size: the size these per-worker figures are of
	return snap
}

// followProgram keeps the size rows to what the program's pool does
// between the last sample and ps: a size other than the one in force (the
// program set it itself, or ignored an Action's) starts its row now, unless
// an Action resized the pool since resizes was read; and an interval in which the pool
// had no task (none queued or running, none submitted or ended) and its
// routes answered no request (answered, the count of all they answered,
// did not move) is idle: the row in force counts nothing from the last
// sample until one comes, and the Snapshot says Paused meanwhile.
func (s *Session) followProgram(sm *sampler, ps pool.Stats, resizes, answered int64) {
	s.mu.Lock()
	// An Action that resized since ps was read: the next sample judges.
	resized := ps.Size != s.workers && s.resizes == resizes
	if resized {
		s.workers = ps.Size
	}
	s.mu.Unlock()
	if resized {
		s.enterSize(s.sizeKey())
	}
	prev := sm.pool
	idle := ps.Queued == 0 && ps.Running == 0 && ps.Submitted == prev.Submitted &&
		ps.Completed == prev.Completed && ps.Failed == prev.Failed && ps.TimedOut == prev.TimedOut &&
		answered == sm.answered
	sm.answered = answered
	s.mu.Lock()
	changed := s.paused != idle
	s.paused = idle
	s.mu.Unlock()
	if changed {
		s.sizes.idleSince(idle, sm.at, prev.Completed, sm.sys.CPU, sm.sys.CPUKnown)
	}
}

// point is a completed-task count at a time, for throughput.
type point struct {
	at        time.Time
	completed int64
}

// throughput is tasks completed per second over the sliding window (or
// since the first sample, while the run is younger than the window): over
// one 250ms interval a rate moves in steps of 4/s, over a window it reads
// steadily and agrees with the scenario's own rates.
func (sm *sampler) throughput(now time.Time, completed int64, window time.Duration) float64 {
	sm.done = append(sm.done, point{now, completed})
	i := 0
	for i < len(sm.done)-2 && now.Sub(sm.done[i+1].at) >= window {
		i++
	}
	sm.done = sm.done[i:]
	first := sm.done[0]
	return rate(completed-first.completed, now.Sub(first.at))
}

// history is the charts' series, one point per sample, at most
// HistoryLen: the Loop probe's p99 over the last second in ms (NaN: no
// sample), queue depth, pool size.
type history struct{ p99, queue, workers []float64 }

func (h *history) reset() { h.p99, h.queue, h.workers = h.p99[:0], h.queue[:0], h.workers[:0] }

// add appends a point and gives s a copy of the series.
func (h *history) add(s *Snapshot, p99, queue, workers float64) {
	h.p99 = appendCapped(h.p99, p99)
	h.queue = appendCapped(h.queue, queue)
	h.workers = appendCapped(h.workers, workers)
	s.ProbeP99History = append([]float64(nil), h.p99...)
	s.QueueDepthHistory = append([]float64(nil), h.queue...)
	s.WorkersHistory = append([]float64(nil), h.workers...)
}

// appendCapped appends v, keeping the newest HistoryLen values.
func appendCapped(h []float64, v float64) []float64 {
	h = append(h, v)
	if len(h) > HistoryLen {
		h = append(h[:0], h[len(h)-HistoryLen:]...)
	}
	return h
}

// rate is n per second over dt; 0 when dt <= 0.
func rate(n int64, dt time.Duration) float64 {
	if dt <= 0 {
		return 0
	}
	return float64(n) / dt.Seconds()
}

// fraction is d / dt clamped to 0..1.
func fraction(d, dt time.Duration) float64 {
	if dt <= 0 {
		return 0
	}
	return min(max(float64(d)/float64(dt), 0), 1)
}

// loopBusy is the Loop's busy share over dt, busy of it in callbacks;
// unknown (NaN) when t posts the probe on a program's own loop, which the
// session does not run and so cannot time.
func loopBusy(t target, busy, dt time.Duration) Share {
	if t.post() != nil {
		return Share(math.NaN())
	}
	return Share(fraction(busy, dt))
}
