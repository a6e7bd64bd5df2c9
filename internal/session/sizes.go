package session

import (
	"slices"
	"sync"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/sysinfo"
	"github.com/offtop/offtop/internal/workload"
)

// sizeKey names a row.
type sizeKey struct {
	scen       string
	workers    int
	gomaxprocs int // without the Ps priority workers add
	priority   bool
}

// sizeAcc accumulates one row. Guarded by sizes.mu.
type sizeAcc struct {
	key       sizeKey
	held      time.Duration // closed stretches
	idle      time.Duration // closed idle stretches
	probe     *hist.Exact
	headline  *hist.Exact
	completed int64
	cpu       time.Duration
	cpuOK     bool
	answerOK  bool
	answered  bool
	unsettled int64
	served    map[string]*hist.Exact // per endpoint; nil until one is served
	others    time.Duration          // the machine's others while held
	othersAt  time.Duration          // over this much of the reading's time
	othersOK  bool
	machCPUs  int
}

// stretch is one period a row was in force.
type sizeStretch struct {
	acc     *sizeAcc
	start   time.Time
	settled time.Time // zero until the Loop has drained the size before
	done0   int64     // completed at start
	cpu0    time.Duration
	cpuOK0  bool
	paused  bool // the load was paused: nothing of it counts
	idle    bool // paused because the program had no task and answered no request: its time is Idle
	mach0   sysinfo.MachineSample
}

// counters reads the pool's completed count and the process CPU time.
type counters func() (completed int64, cpu time.Duration, cpuOK bool)

// sizes is the session's per-size accounting. Safe for concurrent use.
type sizes struct {
	now  func() time.Time
	read counters
	// machine reads the rest of the machine's CPU; nil: unknown.
	machine func() sysinfo.MachineSample
	// headline is the headline of the workload named (target.headline);
	// nil: the Loop probe (workload.ProbeHeadline).
	headline func(name string) workload.HeadlineSpec
	res      time.Duration // probe resolution: the correction interval

	// second is the Loop probe, corrected, over the last second (the
	// charts' per-second p99); window is every headline observation over
	// the session's window (the headline "now"). Both are safe on their own.
	second *hist.Recorder
	window *hist.Recorder

	mu       sync.Mutex
	rows     map[sizeKey]*sizeAcc
	order    []*sizeAcc     // in order of first use
	stretchs []*sizeStretch // newest last, at most maxStretches
}

// spec is the headline of the workload named name.
func (z *sizes) spec(name string) workload.HeadlineSpec {
	if z.headline == nil {
		return workload.ProbeHeadline
	}
	return z.headline(name)
}

// headlineOf is the headline figure spec names: the Loop probe's figure
// when the headline is the probe (FromProbe), else the workload's own.
func headlineOf[T any](spec workload.HeadlineSpec, probe, own T) T {
	if spec.FromProbe {
		return probe
	}
	return own
}

// maxStretches bounds the stretches kept to file late observations under;
// one older than all of them is dropped (counted in no row).
const maxStretches = 64

func newSizes(now func() time.Time, read counters, res, window time.Duration) *sizes {
	if now == nil {
		now = time.Now
	}
	return &sizes{now: now, read: read, res: res, rows: map[sizeKey]*sizeAcc{},
		second: hist.NewRecorder(time.Second, now), window: hist.NewRecorder(window, now)}
}

// enter makes k the row in force from now. With drained true its
// observations count at once; else only after settle is called on the
// returned stretch (the Loop ran a marker posted behind what was queued).
// Entering the row already in force does nothing and returns nil.
func (z *sizes) enter(k sizeKey, drained bool) *sizeStretch {
	now := z.now()
	done, cpu, cpuOK := z.read()
	m := z.readMachine()
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.enterAt(k, drained, now, done, cpu, cpuOK, m)
}

// enterAt is enter at now, with the counters and the machine read then.
// Callers hold mu.
func (z *sizes) enterAt(k sizeKey, drained bool, now time.Time, done int64, cpu time.Duration, cpuOK bool, m sysinfo.MachineSample) *sizeStretch {
	cur := z.current()
	if cur != nil && cur.acc.key == k && z.rows[k] == cur.acc {
		return nil
	}
	z.close(cur, now, done, cpu, cpuOK)
	z.closeMachine(cur, m)
	acc := z.rows[k]
	if acc == nil {
		acc = &sizeAcc{key: k, probe: hist.NewExact(), headline: hist.NewExact(), cpuOK: true, othersOK: true}
		z.rows[k] = acc
		z.order = append(z.order, acc)
	}
	st := &sizeStretch{acc: acc, start: now, done0: done, cpu0: cpu, cpuOK0: cpuOK, paused: cur != nil && cur.paused, idle: cur != nil && cur.idle, mach0: m}
	if drained {
		st.settled = now
	}
	z.push(st)
	return st
}

// push makes st the stretch in force. Callers hold mu.
func (z *sizes) push(st *sizeStretch) {
	z.stretchs = append(z.stretchs, st)
	if len(z.stretchs) > maxStretches {
		z.stretchs = slices.Delete(z.stretchs, 0, len(z.stretchs)-maxStretches)
	}
}

// pause stops (on) or restarts the row in force from now: a paused
// stretch adds nothing to its row, and what begins in it is filed in no
// row. A row entered while paused starts paused. Pausing twice, or
// resuming a row not paused, does nothing.
func (z *sizes) pause(on bool) {
	now := z.now()
	done, cpu, cpuOK := z.read()
	z.pauseAt(on, false, now, done, cpu, cpuOK)
}

// idleSince pauses (on) or restarts the row in force as pause does, from
// at (no later than now), with the counters read at that time: a program
// had no task and answered no request since at (on), or has had work since
// at. Idle time counts in the row's Idle.
func (z *sizes) idleSince(on bool, at time.Time, done int64, cpu time.Duration, cpuOK bool) {
	z.pauseAt(on, on, at, done, cpu, cpuOK)
}

func (z *sizes) pauseAt(on, idle bool, at time.Time, done int64, cpu time.Duration, cpuOK bool) {
	m := z.readMachine()
	z.mu.Lock()
	defer z.mu.Unlock()
	cur := z.current()
	if cur == nil || cur.paused == on {
		return
	}
	if at.Before(cur.start) { // the row came into force since: from then
		at = cur.start
	}
	z.close(cur, at, done, cpu, cpuOK)
	z.closeMachine(cur, m)
	z.push(&sizeStretch{acc: cur.acc, start: at, settled: at, done0: done, cpu0: cpu, cpuOK0: cpuOK, paused: on, idle: idle, mach0: m})
}

// settle marks st's row as counting from now.
func (z *sizes) settle(st *sizeStretch) {
	if st == nil {
		return
	}
	now := z.now()
	z.mu.Lock()
	defer z.mu.Unlock()
	if st.settled.IsZero() {
		st.settled = now
	}
}

// current is the stretch in force, nil before the first enter. Callers
// hold mu.
func (z *sizes) current() *sizeStretch {
	if len(z.stretchs) == 0 {
		return nil
	}
	return z.stretchs[len(z.stretchs)-1]
}

// close adds st's time and counts up to now into its row. Callers hold mu.
func (z *sizes) close(st *sizeStretch, now time.Time, done int64, cpu time.Duration, cpuOK bool) {
	if st != nil && st.idle {
		st.acc.idle += max(now.Sub(st.start), 0)
	}
	if st == nil || st.paused {
		return
	}
	held, d, c, ok := st.span(now, done, cpu, cpuOK)
	st.acc.held += held
	st.acc.completed += d
	st.acc.cpu += c
	st.acc.cpuOK = st.acc.cpuOK && ok
}

// readMachine is the machine now; unknown without a reader.
func (z *sizes) readMachine() sysinfo.MachineSample {
	if z.machine == nil {
		return sysinfo.MachineSample{}
	}
	return z.machine()
}

// closeMachine adds the others' CPU time of st up to m into its row.
// Callers hold mu.
func (z *sizes) closeMachine(st *sizeStretch, m sysinfo.MachineSample) {
	if st == nil || st.paused {
		return
	}
	d, at, ok := st.othersSpan(m)
	st.acc.others += d
	st.acc.othersAt += at
	st.acc.othersOK = st.acc.othersOK && ok
	st.acc.machCPUs = max(st.acc.machCPUs, m.CPUs)
}

// othersSpan is the others' CPU time from st's start to m, and the
// readings' time between.
func (st *sizeStretch) othersSpan(m sysinfo.MachineSample) (time.Duration, time.Duration, bool) {
	return max(m.Others-st.mach0.Others, 0), max(m.At.Sub(st.mach0.At), 0), m.Known && st.mach0.Known
}

// span is st's time, completions and CPU from its start to now.
func (st *sizeStretch) span(now time.Time, done int64, cpu time.Duration, cpuOK bool) (time.Duration, int64, time.Duration, bool) {
	return max(now.Sub(st.start), 0), max(done-st.done0, 0), max(cpu-st.cpu0, 0), cpuOK && st.cpuOK0
}

// clear forgets scen's rows (the r key) and starts the row k afresh,
// counting at once; a reader sees the rows before or after, never none.
func (z *sizes) clear(scen string, k sizeKey) {
	now := z.now()
	done, cpu, cpuOK := z.read()
	m := z.readMachine()
	z.mu.Lock()
	defer z.mu.Unlock()
	for key, acc := range z.rows {
		if key.scen == scen {
			delete(z.rows, key)
			z.order = slices.DeleteFunc(z.order, func(a *sizeAcc) bool { return a == acc })
		}
	}
	z.enterAt(k, true, now, done, cpu, cpuOK, m)
}

// file returns the row of an observation that began at start and ends
// now: the row in force when it began, if no other row came into force
// since (a pause or idle stretch in between does not matter). Else nil: begun
// paused or idle (no row), before the Loop drained the size before, or
// under another row than now's (either size may have made its time);
// the last two count in the beginning row's Unsettled. Callers hold mu.
func (z *sizes) file(start time.Time) *sizeAcc {
	for i := len(z.stretchs) - 1; i >= 0; i-- {
		st := z.stretchs[i]
		if st.start.After(start) {
			continue
		}
		if st.paused {
			return nil
		}
		if st.settled.IsZero() || start.Before(st.settled) || z.changedSince(i) {
			st.acc.unsettled++
			return nil
		}
		return st.acc
	}
	return nil
}

// changedSince reports whether a stretch after the i-th is another row's.
// Callers hold mu.
func (z *sizes) changedSince(i int) bool {
	for _, st := range z.stretchs[i+1:] {
		if st.acc != z.stretchs[i].acc {
			return true
		}
	}
	return false
}

// observeProbe takes one Loop probe sample of lateness late, which ran
// now: it was due at now - late, and is filed under the row in force then,
// corrected with the probe's resolution.
func (z *sizes) observeProbe(late time.Duration) {
	z.second.RecordCorrected(int64(late), int64(z.res))
	now := z.now()
	z.mu.Lock()
	defer z.mu.Unlock()
	if acc := z.file(now.Add(-late)); acc != nil {
		acc.probe.RecordCorrected(int64(late), int64(z.res))
	}
}

// observeHeadline takes one headline observation of d that ended now.
func (z *sizes) observeHeadline(d time.Duration) {
	z.window.Record(int64(d))
	now := z.now()
	z.mu.Lock()
	defer z.mu.Unlock()
	if acc := z.file(now.Add(-d)); acc != nil {
		acc.headline.Record(int64(d))
	}
}

// observeServed takes one request served at endpoint that ended now, d
// after it arrived, filed under the row in force when it arrived.
func (z *sizes) observeServed(endpoint string, d time.Duration) {
	now := z.now()
	z.mu.Lock()
	defer z.mu.Unlock()
	acc := z.file(now.Add(-d))
	if acc == nil {
		return
	}
	e := acc.served[endpoint]
	if e == nil {
		if acc.served == nil {
			acc.served = map[string]*hist.Exact{}
		}
		e = hist.NewExact()
		acc.served[endpoint] = e
	}
	e.Record(int64(d))
}

// withGOMAXPROCS returns the key in force with GOMAXPROCS g, and whether
// that differs from the key in force.
func (z *sizes) withGOMAXPROCS(g int) (sizeKey, bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	cur := z.current()
	if cur == nil {
		return sizeKey{}, false
	}
	k := cur.acc.key
	if k.gomaxprocs == g {
		return k, false
	}
	k.gomaxprocs = g
	return k, true
}

// answer records scen's answer_ok on the row in force, if it is scen's.
func (z *sizes) answer(scen string, ok bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if cur := z.current(); cur != nil && cur.acc.key.scen == scen && z.rows[cur.acc.key] == cur.acc {
		cur.acc.answerOK, cur.acc.answered = ok, true
	}
}
