package session

import (
	"math"
	"time"

	"github.com/offtop/offtop/internal/pool"
	"github.com/offtop/offtop/internal/probe"
	"github.com/offtop/offtop/internal/sysinfo"
)

// sampler holds what one sample needs from the previous one. Only the
// sampler goroutine touches it.
type sampler struct {
	pool    pool.Stats
	loop    probe.LoopStats
	sys     sysinfo.Sample
	at      time.Time
	p99     []float64
	queue   []float64
	started bool
}

// run is the sampler goroutine: one sample every Interval, never on the
// Loop, until stop.
func (s *Session) run() {
	defer close(s.done)
	t := time.NewTicker(s.cfg.Interval)
	defer t.Stop()
	var sm sampler
	sm.prime(s)
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		snap := sm.take(s)
		s.lastMu.Lock()
		s.last = snap
		s.lastMu.Unlock()
		select {
		case s.samples <- snap:
		default: // reader far behind: drop the oldest, keep the newest
			select {
			case <-s.samples:
			default:
			}
			s.samples <- snap
		}
	}
}

func (sm *sampler) prime(s *Session) {
	sm.pool = s.pool.Stats()
	sm.loop = s.loop.Stats()
	sm.sys = s.sys.Read()
	sm.at = time.Now()
}

// take reads every source once and builds a Snapshot.
func (sm *sampler) take(s *Session) Snapshot {
	now := time.Now()
	ps := s.pool.Stats()
	ls := s.loop.Stats()
	sys := s.sys.Read()
	lag := s.lag.Stats()
	sch := s.sched.Stats()
	s.mu.Lock()
	st := s.scen.Status()
	s.mu.Unlock()

	dt := now.Sub(sm.at)
	busy, oncpu := pool.Utilization(sm.pool, ps)
	slots := make([]int, len(ps.Workers))
	retiring := make([]bool, len(ps.Workers))
	for i, w := range ps.Workers {
		slots[i], retiring[i] = w.Slot, w.Retiring
	}
	snap := Snapshot{
		Elapsed:          now.Sub(s.start),
		Load:             st.Load,
		Readouts:         st.Readouts,
		GOMAXPROCS:       sys.GOMAXPROCS,
		NumCPU:           sys.NumCPU,
		QueueDepth:       ps.Queued,
		Submitted:        ps.Submitted,
		Completed:        ps.Completed,
		Failed:           ps.Failed + ps.TimedOut,
		Running:          ps.Running,
		Rejected:         ps.Rejected,
		Replaced:         ps.Replaced,
		TimedOut:         ps.TimedOut,
		Abandoned:        ps.Abandoned,
		Stuck:            ps.Stuck,
		ThroughputPerSec: rate(ps.Completed-sm.pool.Completed, dt),
		WorkerSlots:      slots,
		WorkerBusy:       busy,
		WorkerOnCPU:      oncpu,
		WorkerRetiring:   retiring,
		LoopBusy:         fraction(ls.Busy-sm.loop.Busy, dt),
		LoopQueued:       ls.Queued,
		CPUPercent:       -1,
		RSSBytes:         sys.RSS,
		Goroutines:       sys.Goroutines,
		Probe:            lag.Corrected,
		ProbeRaw:         lag.Raw,
		ProbeTotal:       lag.CorrectedAll,
		ProbeMissed:      lag.Missed,
		Sched:            sch.Corrected,
		SchedRuntime:     sch.Runtime,
		Task:             ps.Total,
		TaskWait:         ps.Wait,
		Interval:         s.cfg.Interval,
		Resolution:       s.cfg.Resolution,
		Window:           s.cfg.Window,
	}
	if f, ok := sysinfo.CPUFraction(sm.sys, sys); ok {
		snap.CPUPercent = 100 * f
	}
	if sys.CPUKnown {
		snap.CPUSeconds = sys.CPU.Seconds()
	}
	p99 := math.NaN()
	if lag.Corrected.Count > 0 {
		p99 = float64(lag.Corrected.P99) / float64(time.Millisecond)
	}
	sm.p99 = appendCapped(sm.p99, p99)
	sm.queue = appendCapped(sm.queue, float64(ps.Queued))
	snap.ProbeP99History = append([]float64(nil), sm.p99...)
	snap.QueueDepthHistory = append([]float64(nil), sm.queue...)

	sm.pool, sm.loop, sm.sys, sm.at = ps, ls, sys, now
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.control(snap)
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
