package scenarios

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/offtop/offtop/internal/pace"
	"github.com/offtop/offtop/pool"
)

// Defaults of the crash scenario (seed 003, docs/seeds.md: a pool must
// survive tasks that panic or hang; no task lost, none pending forever).
// Each hang holds a worker for the whole timeout, so hangs cost rate x
// hang share x timeout worker-seconds a second: 0.5 at the defaults, which
// one worker absorbs (at 100 tasks/s it would be 2, and a 1- or 2-worker
// pool would fall behind for good). [ and ] change the panic share, which
// costs nothing.
const (
	DefaultCrashTimeout      = 2 * time.Second
	DefaultCrashRate         = 25
	DefaultCrashPanicPercent = 5
	DefaultCrashHangPercent  = 1
	// crashRounds is the SHA-256 chain length of one task at scale 1:
	// ~1 ms of CPU (a 32-byte SHA-256 takes ~100 ns).
	crashRounds = 10_000
	// crashTick is how often the driver submits the tasks that fell due.
	crashTick = 10 * time.Millisecond
	// crashQuietWait bounds the wait at start for the pool to finish the
	// previous scenario's tasks, so the counts check starts from a quiet
	// pool.
	crashQuietWait = 5 * time.Second
	// crashCheckTries bounds how many times Status re-reads the counts to
	// find a moment when no done callback is in flight.
	crashCheckTries = 50
)

// crashShares are the panic percentages [ and ] step through.
var crashShares = [...]float64{0, 1, 5, 10, 25}

// errCrashPanic is what a task of the panicking kind panics with.
var errCrashPanic = errors.New("crash: task panicked on purpose")

// crashKind is what a task does.
type crashKind uint8

const (
	crashWork  crashKind = iota // a SHA-256 chain, checked
	crashPanic                  // panics at once
	crashHang                   // blocks until the scenario stops
)

// pickKind maps u in [0, 100) to a kind: the first hang% hang, the next
// panic% panic, the rest work.
func pickKind(u, panicPct, hangPct float64) crashKind {
	switch {
	case u < hangPct:
		return crashHang
	case u < hangPct+panicPct:
		return crashPanic
	}
	return crashWork
}

// dueTasks is how many tasks of an open-loop stream at rate per second are
// due by elapsed: a pure function of elapsed time (pace.Rate, integer ns
// as io's arrivals).
func dueTasks(elapsed time.Duration, rate int) int64 {
	return pace.Rate{PerSecond: rate}.Count(elapsed)
}

// stepShare moves pct to the next share in crashShares above (delta > 0)
// or below (delta < 0) it, delta times, clamped to the ends.
func stepShare(pct float64, delta int) float64 {
	for ; delta > 0; delta-- {
		for _, s := range crashShares {
			if s > pct {
				pct = s
				break
			}
		}
	}
	for ; delta < 0; delta++ {
		for i := len(crashShares) - 1; i >= 0; i-- {
			if crashShares[i] < pct {
				pct = crashShares[i]
				break
			}
		}
	}
	return pct
}

// shaChain is the task's work: SHA-256 applied rounds times to seed. It
// looks at done every shaCheck rounds and gives up (ok false) once it is
// closed, so Stop cuts a chain short within about half a millisecond
// whatever the scale.
func shaChain(done <-chan struct{}, seed [32]byte, rounds int) (h [32]byte, ok bool) {
	h = seed
	for i := range rounds {
		if i%shaCheck == shaCheck-1 {
			select {
			case <-done:
				return h, false
			default:
			}
		}
		h = sha256.Sum256(h[:])
	}
	return h, true
}

// shaCheck is how many SHA-256 rounds run between two looks at done.
const shaCheck = 4096

// crashTally is the scenario's own view of its tasks, from Submit results
// and done callbacks. Guarded by crash.mu.
type crashTally struct {
	submitted int64 // Submit returned nil
	completed int64 // done(nil)
	panicked  int64 // done(*pool.PanicError)
	timedOut  int64 // done(pool.ErrTimeout)
	dropped   int64 // done(pool.ErrClosed)
}

type crash struct {
	// base's context is done once Stop begins: the driver stops
	// submitting, and the expected digest and every chain in progress
	// give up.
	base
	timeout time.Duration
	rate    int
	hangPct float64
	panics  atomic.Uint64 // panic percentage, float64 bits; [ and ] step it

	env     Env
	rounds  int
	seed    [32]byte
	want    [32]byte
	release chan struct{}  // closed by Stop: hung tasks return
	pending sync.WaitGroup // tasks submitted whose done has not run
	// hangMu guards hanging, the hung task functions that have not
	// returned; hangDone is signalled when it drops to 0. (Not a
	// WaitGroup: a queued hang may start, and Add, while Stop Waits.)
	hangMu   sync.Mutex
	hanging  int
	hangDone *sync.Cond
	cpu      cpuMeter

	// mu guards tally, baseline and based.
	mu       sync.Mutex
	tally    crashTally
	baseline pool.Counts // the pool's counts when the scenario began submitting
	based    bool

	hangs    atomic.Int64 // hanging tasks submitted
	rejected atomic.Int64 // Submit errors (a full queue)
	wrong    atomic.Int64 // wrong digests, unexpected errors, done called twice
}

func newCrash(c Config) *crash {
	x := &crash{timeout: c.CrashTimeout, rate: c.CrashRate, hangPct: c.CrashHangPercent}
	if x.timeout <= 0 {
		x.timeout = DefaultCrashTimeout
	}
	if x.rate <= 0 {
		x.rate = DefaultCrashRate
	}
	switch {
	case x.hangPct == 0:
		x.hangPct = DefaultCrashHangPercent
	case x.hangPct < 0:
		x.hangPct = 0
	}
	p := c.CrashPanicPercent
	switch {
	case p == 0:
		p = DefaultCrashPanicPercent
	case p < 0:
		p = 0
	}
	x.panics.Store(math.Float64bits(min(p, 100)))
	return x
}

func (c *crash) Name() string { return "crash" }

func (c *crash) Look() string {
	return fmt.Sprintf("a panic fails one task, not the pool; Go can't kill a hang: abandoned, cap %d",
		pool.DefaultMaxAbandoned)
}

func (c *crash) panicPct() float64 { return math.Float64frombits(c.panics.Load()) }

func (c *crash) Start(env Env) error {
	c.env = env
	c.rounds = max(int(float64(crashRounds)*env.Scale), 1)
	c.seed = sha256.Sum256([]byte("offtop crash"))
	c.begin()
	c.release = make(chan struct{})
	c.hangDone = sync.NewCond(&c.hangMu)
	c.goSafe(c.drive)
	return nil
}

// drive computes the expected digest (seconds at --scale 1000, so not in
// Start, and given up on Stop), waits for a quiet pool, takes the baseline
// counts, then submits the tasks that fall due every crashTick, open-loop:
// never waiting on a task.
func (c *crash) drive() {
	want, ok := shaChain(c.done(), c.seed, c.rounds)
	if !ok {
		return
	}
	c.want = want // before any task is submitted: every done reads it after
	quiet := time.Now().Add(crashQuietWait)
	for {
		k := c.env.Counts()
		if k.Running+k.Queued == 0 || time.Now().After(quiet) {
			break
		}
		if !c.sleep(10 * time.Millisecond) {
			return
		}
	}
	c.mu.Lock()
	c.baseline, c.based = c.env.Counts(), true
	c.mu.Unlock()

	r := rand.New(rand.NewPCG(3, 0xc0ffee))
	t0 := c.now()
	var next int64                                             // index of the next due task
	resumed := func() { next = dueTasks(c.since(t0), c.rate) } // without a burst of the paused ones
	c.every(crashTick, resumed, func() {
		for due := dueTasks(c.since(t0), c.rate); next < due; next++ {
			c.submit(pickKind(100*r.Float64(), c.panicPct(), c.hangPct))
		}
	})
}

// submit queues one task of kind k with the scenario's deadline.
func (c *crash) submit(k crashKind) {
	at := time.Now() // submitted: the headline is wait+run
	var got [32]byte // written by the task, read by done unless it timed out
	var whole bool   // the chain ran to its end: not cut short by Stop
	var calls atomic.Int32
	fn := func() {
		switch k {
		case crashPanic:
			panic(errCrashPanic)
		case crashHang:
			c.hangMu.Lock()
			c.hanging++
			c.hangMu.Unlock()
			defer func() {
				c.hangMu.Lock()
				if c.hanging--; c.hanging == 0 {
					c.hangDone.Broadcast()
				}
				c.hangMu.Unlock()
			}()
			<-c.release
		default:
			c.cpu.run(func() { got, whole = shaChain(c.done(), c.seed, c.rounds) })
		}
	}
	done := func(err error) {
		if calls.Add(1) != 1 {
			c.wrong.Add(1)
			return
		}
		defer c.pending.Done()
		c.mu.Lock()
		defer c.mu.Unlock()
		var pe *pool.PanicError
		switch {
		case err == nil:
			c.tally.completed++
			c.env.ObserveHeadline(time.Since(at))
			if k == crashPanic || k == crashWork && whole && got != c.want {
				c.wrong.Add(1)
			}
		case errors.Is(err, pool.ErrTimeout):
			c.tally.timedOut++
		case errors.As(err, &pe):
			c.tally.panicked++
			if k != crashPanic || !errors.Is(err, errCrashPanic) {
				c.wrong.Add(1)
			}
		case errors.Is(err, pool.ErrClosed):
			c.tally.dropped++
		default:
			c.wrong.Add(1)
		}
	}
	c.pending.Add(1)
	c.mu.Lock()
	err := c.env.SubmitTimeout(fn, c.timeout, done)
	if err == nil {
		c.tally.submitted++
	}
	c.mu.Unlock()
	if err != nil {
		c.pending.Done()
		c.rejected.Add(1)
		return
	}
	if k == crashHang {
		c.hangs.Add(1)
	}
}

// consistent reports whether the pool's counts since the baseline match
// the scenario's tally exactly: every task the scenario submitted reached
// exactly one of completed, failed and timed out, or is running or
// queued. The pool counts a task before calling its done, so a reading
// can catch a done in flight; consistent retries until the two agree (a
// lost or doubled outcome never does). It also returns the pool's counts.
func (c *crash) consistent() (ok bool, now pool.Counts) {
	for range crashCheckTries {
		c.mu.Lock()
		a, base, based := c.tally, c.baseline, c.based
		now = c.env.Counts()
		c.mu.Unlock()
		if !based {
			return false, now
		}
		c.mu.Lock()
		b := c.tally
		c.mu.Unlock()
		if a == b && tallyMatches(a, base, now) {
			return true, now
		}
		time.Sleep(100 * time.Microsecond)
	}
	return false, now
}

// tallyMatches compares the scenario's tally with the pool's counts
// since base.
func tallyMatches(a crashTally, base, now pool.Counts) bool {
	open := a.submitted - a.completed - a.panicked - a.timedOut - a.dropped
	return now.Submitted-base.Submitted == a.submitted &&
		now.Completed-base.Completed == a.completed &&
		now.Failed-base.Failed == a.panicked+a.dropped &&
		now.TimedOut-base.TimedOut == a.timedOut &&
		(now.Running-base.Running)+(now.Queued-base.Queued) == open
}

// Stop stops the driver, releases the hung tasks, and waits until every
// task it submitted has had its done called and every hung task function
// has returned (so no abandoned goroutine of ours is left running).
// Queued tasks still run, quickly: hangs return at once and chains give
// up (a cut chain is completed, not wrong). Safe twice.
func (c *crash) Stop() {
	c.halt(func() {
		close(c.release)
		// After every done has run, every hung task function has started
		// (a hang's done comes at its timeout or its return); wait for
		// those to return. A hang starting later returns at once: release
		// is closed.
		c.pending.Wait()
		c.hangMu.Lock()
		for c.hanging > 0 {
			c.hangDone.Wait()
		}
		c.hangMu.Unlock()
	})
}

func (c *crash) Status() Status {
	ok, now := c.consistent()
	c.mu.Lock()
	a, base, based := c.tally, c.baseline, c.based
	c.mu.Unlock()
	rs := []Readout{
		Num("submitted", "submitted", float64(a.submitted)),
		Num("completed", "completed", float64(a.completed)),
		Num("panicked", "failed (panic)", float64(a.panicked)),
		Num("timed_out", "timed out", float64(a.timedOut)),
		Num("hangs", "hangs sent", float64(c.hangs.Load())),
		Num("abandoned", "abandoned now", float64(now.Abandoned)),
		Num("stuck", "stuck now", float64(now.Stuck)),
	}
	if based {
		rs = append(rs, Num("replaced", "workers replaced", float64(now.Replaced-base.Replaced)))
	} else {
		rs = append(rs, NA("replaced", "workers replaced"))
	}
	rs = append(rs,
		Num("rejected", "rejected", float64(c.rejected.Load())),
		c.cpu.readout("cpu_per_task_ms", "CPU/task"),
	)
	rs = append(rs, answer(based && a.completed+a.panicked+a.timedOut > 0, ok && c.wrong.Load() == 0))
	return Status{
		Load:     fmt.Sprintf("%d tasks/s: %g%% panic, %g%% hang past %v", c.rate, c.panicPct(), c.hangPct, c.timeout),
		Readouts: rs,
	}
}

// SetLoad steps the panic share through 0, 1, 5, 10, 25 percent.
func (c *crash) SetLoad(delta int) {
	c.panics.Store(math.Float64bits(stepShare(c.panicPct(), clampSteps(delta, len(crashShares)))))
}

// Reset keeps the counts: they are the answer's check, like the pool's.
func (c *crash) Reset() {}
