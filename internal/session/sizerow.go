package session

import (
	"math"
	"slices"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/sysinfo"
)

// SizeRow is what one pool size did while it was held: per scenario, per
// pool size, per GOMAXPROCS (a change of either starts another row; coming
// back to a size adds to its row). Its histograms are its own, exact HDR,
// so "p99 at 1 worker" is measured, never inferred from a sliding window.
//
// Observations are filed under the row in force when they began, if no
// other row came into force before they ended: a ping sent at 0 workers and
// answered after the switch to 1, or a probe tick due at 1 worker that the
// Loop runs after the first inline task of 0, may owe its time to either
// size, and is counted in Unsettled of the row it began in and recorded in
// no row. After a change, the Loop first runs what was queued on it before
// the change (an inline task of the size before); observations that begin
// before it has are counted in Unsettled too. While the load is
// paused (space) the row in force is not held: its time, completions, CPU
// and observations count in no row, since they are not what the size does
// under the load. Likewise in an attached program while its pool has no
// task: that time is the row's Idle, not its Held.
type SizeRow struct {
	Scenario   string
	Workers    int
	GOMAXPROCS int
	// Priority: the row's workers were priority workers (pool.SetPriority);
	// GOMAXPROCS is then without the Ps they add.
	Priority bool
	// Held is the wall time this size was in force with the load on, the
	// current stretch included.
	Held time.Duration
	// Idle is the wall time this size was in force in a program whose
	// pool had no task (none queued, running, started or ended) and whose
	// routes answered no request: counted apart, in no figure of the row.
	Idle time.Duration
	// Probe is the Loop probe's lateness at this size, corrected for
	// coordinated omission.
	Probe hist.Summary
	// Headline is the scenario's headline latency at this size
	// (target.headline; for stall, the probe itself).
	Headline     hist.Summary
	HeadlineName string
	// Completed is pool tasks completed while the size was held.
	Completed int64
	// CPUSeconds is process CPU time while the size was held; CPUKnown
	// false when the OS gave none.
	CPUSeconds float64
	CPUKnown   bool
	// AnswerKnown and AnswerOK are the scenario's answer_ok at the last
	// sample taken at this size that knew it.
	AnswerKnown, AnswerOK bool
	// Current marks the row in force.
	Current bool
	// Unsettled counts observations begun at this size and left out:
	// begun before the Loop had drained the work of the size before, or
	// ended after another size came into force.
	Unsettled int64
	// Served is the latency of the requests a scenario's server answered
	// at this size, per endpoint ("ping", "fast", "slow"), from arrival to
	// response, whoever sent them; empty for a scenario that serves none.
	Served map[string]hist.Summary
	// OthersSeconds is the CPU time the rest of the machine used while
	// the size was held, over OthersWall of the machine reading's own time
	// (sysinfo.MachineSample; Held on the session's clock may be a test's
	// fake one); OthersKnown false when it could not be read. MachineBusy
	// says others took more than sysinfo.BusyShare of the CPUs then: the
	// row measured the neighbours too.
	OthersSeconds float64
	OthersWall    time.Duration
	OthersKnown   bool
	MachineBusy   bool
}

// OthersCPUs is OthersSeconds per second of OthersWall (1 = one CPU busy
// with other work); NaN when unknown or not held yet.
func (r SizeRow) OthersCPUs() float64 {
	if !r.OthersKnown || r.OthersWall <= 0 {
		return math.NaN()
	}
	return r.OthersSeconds / r.OthersWall.Seconds()
}

// ThroughputPerS is Completed per second held; 0 when not held yet.
func (r SizeRow) ThroughputPerS() float64 { return rate(r.Completed, r.Held) }

// CPUPerWall is CPU seconds per wall second held (1 = one core busy); NaN
// when unknown or not held yet.
func (r SizeRow) CPUPerWall() float64 {
	if !r.CPUKnown || r.Held <= 0 {
		return math.NaN()
	}
	return r.CPUSeconds / r.Held.Seconds()
}

// snapshot returns every row, the current stretch counted up to now and
// to m, the machine read by the caller (one reading a sample): scenarios
// in order of first use, sizes by workers then GOMAXPROCS.
func (z *sizes) snapshot(m sysinfo.MachineSample) []SizeRow {
	now := z.now()
	done, cpu, cpuOK := z.read()
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.rowsAt(now, done, cpu, cpuOK, m)
}

// rowsAt is snapshot's rows at now, the pool having completed done, the
// process used cpu and the machine read m. Callers hold mu.
func (z *sizes) rowsAt(now time.Time, done int64, cpu time.Duration, cpuOK bool, m sysinfo.MachineSample) []SizeRow {
	cur := z.current()
	var scens []string
	for _, a := range z.order {
		if !slices.Contains(scens, a.key.scen) {
			scens = append(scens, a.key.scen)
		}
	}
	out := make([]SizeRow, 0, len(z.order))
	for _, a := range z.order {
		spec := z.spec(a.key.scen)
		r := SizeRow{
			Scenario: a.key.scen, Workers: a.key.workers, GOMAXPROCS: a.key.gomaxprocs, Priority: a.key.priority,
			Held: a.held, Idle: a.idle, Completed: a.completed, CPUSeconds: a.cpu.Seconds(), CPUKnown: a.cpuOK,
			Probe: a.probe.Summary(), Headline: a.headline.Summary(), HeadlineName: spec.Name,
			AnswerKnown: a.answered, AnswerOK: a.answerOK, Unsettled: a.unsettled,
			Served:        map[string]hist.Summary{},
			OthersSeconds: a.others.Seconds(), OthersWall: a.othersAt, OthersKnown: a.othersOK,
		}
		for ep, e := range a.served {
			r.Served[ep] = e.Summary()
		}
		cpus := a.machCPUs
		if cur != nil && cur.acc == a {
			if cur.idle {
				r.Idle += max(now.Sub(cur.start), 0)
			}
			if !cur.paused {
				held, d, c, ok := cur.span(now, done, cpu, cpuOK)
				r.Held += held
				r.Completed += d
				r.CPUSeconds += c.Seconds()
				r.CPUKnown = r.CPUKnown && ok
				o, at, ok := cur.othersSpan(m)
				r.OthersSeconds += o.Seconds()
				r.OthersWall += at
				r.OthersKnown = r.OthersKnown && ok
				cpus = max(cpus, m.CPUs)
			}
			r.Current = true
		}
		if v := r.OthersCPUs(); !math.IsNaN(v) {
			r.MachineBusy = sysinfo.Busy(v, cpus)
		}
		r.Headline = headlineOf(spec, r.Probe, r.Headline)
		out = append(out, r)
	}
	SortRows(out, scens)
	return out
}

// SortRows orders rows as a Snapshot's Sizes: by scenario in scens'
// order, then workers, then GOMAXPROCS; stable.
func SortRows(rows []SizeRow, scens []string) {
	slices.SortStableFunc(rows, func(a, b SizeRow) int {
		if c := slices.Index(scens, a.Scenario) - slices.Index(scens, b.Scenario); c != 0 {
			return c
		}
		if a.Workers != b.Workers {
			return a.Workers - b.Workers
		}
		return a.GOMAXPROCS - b.GOMAXPROCS
	})
}
