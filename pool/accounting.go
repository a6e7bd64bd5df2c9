package pool

import (
	"sync"
	"time"

	"github.com/offtop/offtop/internal/cpuclock"
	"github.com/offtop/offtop/internal/hist"
)

// runAcct is a slot life's busy and on-CPU accounting. A run is a stretch
// of back-to-back tasks: from the start of a task taken while idle to the
// moment the worker finds no next task (or exits). mu guards the fields, so
// that Stats never reads the CPU clock of a thread the run has left.
type runAcct struct {
	mu       sync.Mutex
	inRun    bool
	clocked  bool          // the run in progress reads the thread CPU clock (see shortRun)
	run      uint64        // number of the run in progress (or last begun)
	runStart int64         // start of the run in progress (Pool.clock)
	tid      int           // its OS thread (0: not known)
	cpu0     time.Duration // that thread's CPU clock at run start
	cpu0OK   bool          // cpu0 was read
	busy     time.Duration // wall time of finished runs
	onCPU    time.Duration // thread CPU time of finished runs (an unclocked one's wall time)
	cpuOK    bool          // every thread clock read at run end succeeded
	// clockedRuns counts the runs begun clocked.
	clockedRuns int64

	lat latBuf // the slot's task latencies not yet recorded; guarded by Pool.mu
}

// record adds one finished task to the latency recorders.
// start and end are Pool.clock readings.
func (p *Pool) record(t *task, start, end int64) {
	at := p.at(end)
	p.wait.RecordAt(hist.Sample{NS: start - t.submitted, At: at})
	p.run.RecordAt(hist.Sample{NS: end - start, At: at})
	p.total.RecordAt(hist.Sample{NS: end - t.submitted, At: at})
}

// at is the time of a Pool.clock reading.
func (p *Pool) at(ns int64) time.Time { return p.epoch.Add(time.Duration(ns)) }

// latBatch is how many tasks' latencies a worker keeps before it records
// them into the pool's recorders itself; Stats records what is kept first.
const latBatch = 32

// latBuf is a slot's latencies not yet recorded, guarded by Pool.mu: the
// worker keeps each task's where it counts the task (finishOnWorker,
// under mu anyway), instead of taking the three shared recorders' locks,
// or a lock of its own, per task. Each task keeps three Pool.clock
// readings, no pointers (a time.Time holds one: writing it costs a write
// barrier while the collector runs); recordTimes turns them into Samples
// with their time, so the window sees each where it would have been
// (hist.Recorder.RecordAt).
type latBuf struct {
	n  int
	ts [latBatch]latTimes
}

// latTimes are one finished task's Pool.clock readings.
type latTimes struct{ submitted, start, end int64 }

// addLocked keeps t's latencies. A full b first moves its batch to spill,
// which the caller records once mu is released. Callers hold mu.
func (b *latBuf) addLocked(t *task, start, end int64, spill *latBuf) {
	if b.n == latBatch {
		*spill = *b
		b.n = 0
	}
	b.ts[b.n] = latTimes{submitted: t.submitted, start: start, end: end}
	b.n++
}

// takeLocked appends what b keeps to ts and empties b. Callers hold mu.
func (b *latBuf) takeLocked(ts []latTimes) []latTimes {
	ts = append(ts, b.ts[:b.n]...)
	b.n = 0
	return ts
}

// recordTimes records finished tasks' latencies into p's recorders, a
// batch under each recorder's lock at a time. Callers do not hold mu.
func (p *Pool) recordTimes(ts []latTimes) {
	var s [latBatch]hist.Sample
	for len(ts) > 0 {
		b := ts[:min(len(ts), latBatch)]
		ts = ts[len(b):]
		for i, x := range b {
			s[i] = hist.Sample{NS: x.start - x.submitted, At: p.at(x.end)}
		}
		p.wait.RecordAt(s[:len(b)]...)
		for i, x := range b {
			s[i].NS = x.end - x.start
		}
		p.run.RecordAt(s[:len(b)]...)
		for i, x := range b {
			s[i].NS = x.end - x.submitted
		}
		p.total.RecordAt(s[:len(b)]...)
	}
}

// flushLat records what w keeps.
func (p *Pool) flushLat(w *worker) {
	p.mu.Lock()
	ts := w.lat.takeLocked(nil)
	p.mu.Unlock()
	p.recordTimes(ts)
}

// ResetLatency empties the latency recorders (window and since-reset).
// Counts and busy times are not reset.
func (p *Pool) ResetLatency() {
	p.mu.Lock()
	for _, w := range p.slots {
		if w != nil {
			w.lat.n = 0
		}
	}
	p.mu.Unlock()
	p.wait.Reset()
	p.run.Reset()
	p.total.Reset()
}

// shortRun and shortStreak: after shortStreak runs in a row shorter than
// shortRun, a worker's next runs are unclocked until one lasts shortRun
// or more; the shortStreak runs after that are clocked whatever their
// length. Two reads of the thread CPU clock and gettid cost ~0.5-1 us on
// a VM, as much as a short task. An unclocked run counts its wall time as
// on-CPU: the error is at most that run's length, and a long run misread
// so is at most one in shortStreak+1 runs.
const (
	shortStreak = 16
	shortRun    = 50 * time.Microsecond
)

// beginRun starts a run on the calling worker goroutine. A clocked run
// (see shortRun) locks the goroutine to its OS thread and reads the
// thread's id and CPU clock; an unclocked one reads nothing.
func (w *runAcct) beginRun(start int64, th *threadLock) {
	th.acquire(start)
	var cpu time.Duration
	ok := false
	if th.clocked {
		cpu, ok = cpuclock.Self()
	}
	w.mu.Lock()
	w.run++
	th.run = w.run
	if th.clocked {
		w.clockedRuns++
	}
	w.inRun, w.clocked, w.runStart, w.tid, w.cpu0, w.cpu0OK = true, th.clocked, start, th.tid, cpu, ok
	w.mu.Unlock()
}

// endRun ends the run the calling goroutine began with beginRun, adds its
// wall and CPU time, and unlocks the thread. After it Stats no longer reads
// that thread. When detach already ended that run (the goroutine was
// abandoned), it only unlocks the thread.
func (w *runAcct) endRun(end int64, th *threadLock) {
	var cpu time.Duration
	ok := false
	if th.clocked {
		cpu, ok = cpuclock.Self()
	}
	w.mu.Lock()
	if w.inRun && w.run == th.run {
		d := time.Duration(end - w.runStart)
		if d > 0 {
			w.busy += d
		}
		switch {
		case !w.clocked:
			w.onCPU += max(d, 0)
		case ok && w.cpu0OK:
			if d := cpu - w.cpu0; d > 0 {
				w.onCPU += d
			}
		default:
			w.cpuOK = false
		}
		w.inRun, w.tid = false, 0
	}
	w.mu.Unlock()
	th.release(end)
}

// detach ends the run in progress, if any, from another goroutine as of
// end: expire calls it for an abandoned goroutine, before the slot's
// replacement starts, so the slot counts the abandoned task up to its
// timeout and no further. The thread's CPU clock is read from outside, as
// read does.
func (w *runAcct) detach(end int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.inRun {
		return
	}
	d := time.Duration(end - w.runStart)
	if d > 0 {
		w.busy += d
	}
	if !w.clocked {
		w.onCPU += max(d, 0)
		w.inRun, w.tid = false, 0
		return
	}
	cpuOK := false
	if w.tid != 0 && w.cpu0OK {
		if cpu, ok := cpuclock.Thread(w.tid); ok {
			cpuOK = true
			if d := cpu - w.cpu0; d > 0 {
				w.onCPU += d
			}
		}
	}
	if !cpuOK {
		w.cpuOK = false
	}
	w.inRun, w.tid = false, 0
}

// read fills the accounting fields of ws as of at, the run in progress
// included (unclocked: its wall time as on-CPU). While w.mu is held with
// a clocked run in progress the worker cannot leave its thread (endRun
// needs w.mu first), so reading that thread's CPU clock from here is safe.
func (w *runAcct) read(at int64, ws *Worker) {
	w.mu.Lock()
	defer w.mu.Unlock()
	ws.Busy, ws.OnCPU, ws.OnCPUKnown = w.busy, w.onCPU, w.cpuOK
	if !w.inRun {
		return
	}
	if d := time.Duration(at - w.runStart); d > 0 {
		ws.Busy += d
		if !w.clocked {
			ws.OnCPU += d
		}
	}
	if w.clocked && w.tid != 0 && w.cpu0OK {
		if cpu, ok := cpuclock.Thread(w.tid); ok {
			if d := cpu - w.cpu0; d > 0 {
				ws.OnCPU += d
			}
		}
	}
}

// utilization implements Utilization.
func utilization(prev, cur Stats) (busy, onCPU []float64) {
	busy = make([]float64, len(cur.Workers))
	known := len(cur.Workers) > 0
	for _, w := range cur.Workers {
		known = known && w.OnCPUKnown
	}
	if known {
		onCPU = make([]float64, len(cur.Workers))
	}
	dt := cur.At.Sub(prev.At)
	if dt <= 0 {
		return busy, onCPU
	}
	j := 0 // prev.Workers is sorted by slot, like cur.Workers
	for i, w := range cur.Workers {
		for j < len(prev.Workers) && prev.Workers[j].Slot < w.Slot {
			j++
		}
		var pb, pc time.Duration
		if j < len(prev.Workers) && prev.Workers[j].Slot == w.Slot && prev.Workers[j].gen == w.gen {
			pb, pc = prev.Workers[j].Busy, prev.Workers[j].OnCPU
		}
		busy[i] = fraction(w.Busy-pb, dt)
		if known {
			onCPU[i] = fraction(w.OnCPU-pc, dt)
		}
	}
	return busy, onCPU
}

// fraction returns d/dt clamped to 0..1.
func fraction(d, dt time.Duration) float64 {
	f := float64(d) / float64(dt)
	switch {
	case f < 0 || f != f:
		return 0
	case f > 1:
		return 1
	}
	return f
}
