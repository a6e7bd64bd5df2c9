package scenarios

import (
	"context"
	"sync"
	"time"

	"github.com/offtop/offtop/internal/clock"
	guard "github.com/offtop/offtop/internal/crash"
)

// base is the lifecycle every scenario shares, held once: the pause gate,
// the context Stop cancels, the WaitGroup of the goroutines the scenario
// started, and a Stop that runs once. A scenario embeds it, calls begin in
// Start, starts its drivers with goSafe, and ends its Stop with halt. It
// gives the scenario its Pause.
//
// Pausing blocks: a driver waits on waitRunning (or a pace loop on every),
// which sleeps on a channel until the scenario resumes or stops, so a
// paused scenario has no wake-ups of its own.
type base struct {
	gate
	ctx    context.Context // done once Stop begins
	cancel context.CancelFunc
	wg     sync.WaitGroup // the goroutines started by goSafe
	once   sync.Once
	clk    clock.Clock // the schedules' time (Config.Clock); nil is the wall clock
}

// useClock sets the clock of the scenario's schedules (New calls it with
// Config.Clock).
func (b *base) useClock(c clock.Clock) { b.clk = c }

// clock is the clock of the scenario's schedules: sleeps, meter ticks,
// arrival streams, the elapsed time of rates.
func (b *base) clock() clock.Clock { return clock.Or(b.clk) }

// now is the time on the scenario's clock.
func (b *base) now() time.Time { return b.clock().Now() }

// since is how long ago t was on the scenario's clock.
func (b *base) since(t time.Time) time.Duration { return clock.Since(b.clock(), t) }

// begin makes the context Stop cancels; Start calls it before any goSafe.
func (b *base) begin() { b.ctx, b.cancel = context.WithCancel(context.Background()) }

// done is closed once Stop begins.
func (b *base) done() <-chan struct{} { return b.ctx.Done() }

// stopped reports whether Stop has begun.
func (b *base) stopped() bool { return b.ctx.Err() != nil }

// goSafe runs fn on a goroutine of the scenario's, waited for by Stop; a
// panic in it reaches offtop's crash handler (the terminal is restored).
func (b *base) goSafe(fn func()) {
	b.wg.Go(func() {
		defer guard.Recover()
		fn()
	})
}

// halt is the body of every Stop: the first call cancels the context,
// waits for every goSafe goroutine, then runs then (the scenario's own
// cleanup: servers, files, tasks still in the pool); later calls return
// at once. then may be nil.
func (b *base) halt(then func()) {
	b.once.Do(func() {
		if b.cancel != nil { // Stop without a successful Start
			b.cancel()
		}
		b.wg.Wait()
		if then != nil {
			then()
		}
	})
}

// sleep waits d, false when Stop began first.
func (b *base) sleep(d time.Duration) bool {
	select {
	case <-b.done():
		return false
	case <-b.clock().After(d):
		return true
	}
}

// waitRunning returns at once while the scenario runs, blocks while it is
// paused until it resumes, and returns false once Stop has begun.
func (b *base) waitRunning() bool { return b.waitRunningCtx(b.ctx) }

// waitRunningCtx is waitRunning ended by ctx (a child of the scenario's,
// such as one client's).
func (b *base) waitRunningCtx(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-b.resumed():
	}
	return ctx.Err() == nil
}

// every calls fn at t0 + k*period (k = 1, 2, ...) until Stop, skipping
// due times that passed while fn ran. While the scenario is paused it
// sleeps on the gate, not on the clock: no tick falls due; on resume the
// schedule starts afresh from that moment, and resumed (when not nil) runs
// first. Pacing is a pure function of elapsed time (nextTick); it never
// relies on time.Ticker.
func (b *base) every(period time.Duration, resumed, fn func()) {
	for {
		if b.Paused() {
			if !b.waitRunning() {
				return
			}
			if resumed != nil {
				resumed()
			}
		}
		if !b.pace(period, fn) {
			return
		}
	}
}

// pace runs the schedule from now until Stop (false) or a pause (true),
// calling fn at each due time.
func (b *base) pace(period time.Duration, fn func()) bool {
	clk := b.clock()
	t0 := clk.Now()
	k := int64(1)
	due := clk.After(period)
	for {
		select {
		case <-b.done():
			return false
		case <-b.pausedCh():
			return true
		case <-due:
		}
		if b.Paused() { // paused and fired at once: the pause wins
			return true
		}
		fn()
		k = nextTick(clock.Since(clk, t0), period, k)
		due = clk.After(t0.Add(time.Duration(k) * period).Sub(clk.Now()))
	}
}

// answer is the answer_ok readout: n/a until have (something was checked),
// then whether every check passed.
func answer(have, ok bool) Readout {
	if !have {
		return NA("answer_ok", "answer ok")
	}
	return Bool("answer_ok", "answer ok", ok)
}

// closed is a channel closed from the start: what resumed returns while
// the gate is open.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// gate is the pause state. The zero value is running. Pause may be called
// before Start (a run that starts paused). mu guards wait.
type gate struct {
	mu sync.Mutex
	// wait is nil while running; while paused it is open, and closed on
	// resume. pause is its mirror: closed while paused, open while running.
	wait, pause chan struct{}
}

// Pause stops (true) or resumes (false) generating new work; repeating
// the state is a no-op.
func (g *gate) Pause(p bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if p == (g.wait != nil) {
		return
	}
	if p {
		g.wait = make(chan struct{})
		if g.pause == nil {
			g.pause = make(chan struct{})
		}
		close(g.pause)
		return
	}
	close(g.wait)
	g.wait = nil
	g.pause = make(chan struct{})
}

// Paused reports whether the scenario is paused.
func (g *gate) Paused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.wait != nil
}

// resumed is closed while the scenario runs: a receive from it blocks
// while paused, until resumed.
func (g *gate) resumed() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.wait == nil {
		return closed
	}
	return g.wait
}

// pausedCh is closed while the scenario is paused: a receive from it
// blocks while running, until paused.
func (g *gate) pausedCh() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pause == nil {
		g.pause = make(chan struct{})
	}
	return g.pause
}
