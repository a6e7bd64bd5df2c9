package probe

import (
	"sync"
	"sync/atomic"
	"time"

	guard "github.com/offtop/offtop/internal/crash"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/pace"
	"github.com/offtop/offtop/internal/timerfd"
)

// LagProbe measures how late a callback runs against a fixed schedule: the
// k-th sample is due at t0 + k*resolution, and its lateness is the time it
// ran minus that due time. One sample is in flight at a time, like Node's
// timer on its loop: the next one is scheduled only after the previous one
// ran, at the first due time strictly after it ran (due times skipped are
// counted in LagStats.Missed, and made up for by the corrected histogram).
//
// On Linux the probe goroutine waits for each due time on a timerfd in the
// runtime's network poller; elsewhere, or if the timerfd cannot be created,
// on a runtime timer. An idle runtime fires its own timers up to 1 ms late
// (it waits in epoll_wait, whose timeout is in whole ms), which would put
// ~0.6 ms into every idle sample; a timerfd wakes the poller within the
// kernel's timer precision. When the runtime is too busy to run the probe
// goroutine, the sample is late as any goroutine woken by a timer or by I/O
// is: that is what the probe is for. The sample callback only reads the
// clock; lateness is recorded on the probe goroutine, so the Loop never
// waits on a reader of the histograms.
//
// All methods are safe for concurrent use.
type LagProbe struct {
	post     func(fn func()) // nil: run samples on the probe goroutine
	res      time.Duration
	pace     pace.Every // sample k is due at t0 + pace.Due(k)
	t0       time.Time
	wait     waitMode
	fd       *timerfd.Timer // nil unless wait is waitFD; closed by Stop
	raw      *hist.Recorder
	corr     *hist.Recorder
	missed   atomic.Int64
	inflight atomic.Int64   // due time (UnixNano) of the sample in flight; 0 when none
	ran      chan time.Time // 1-buffered: when the sample in flight ran
	sampleFn func()         // p.sample, bound once: posting allocates nothing
	stop     chan struct{}  // closed by Stop
	done     chan struct{}  // closed when the probe goroutine has exited
	stopOnce sync.Once
	observe  atomic.Pointer[func(late time.Duration)] // see Observe
}

// waitMode is how the probe goroutine waits for the next due time. Only
// waitFD is used outside TestIdleLateness and TestSaturatedLateness, which
// compare them.
type waitMode int

const (
	// waitFD waits on a timerfd (Linux); it is waitTimer where there is none.
	waitFD waitMode = iota
	// waitTimer waits on a reused time.Timer in a select with Stop.
	waitTimer
	// waitSleep calls time.Sleep, at most maxSleepChunk at a time.
	waitSleep
)

// maxSleepChunk bounds one uninterruptible time.Sleep (waitSleep), so Stop
// returns within about maxSleepChunk whatever the resolution.
const maxSleepChunk = 50 * time.Millisecond

// StartLagProbe starts a probe that hands a sample callback to post every
// resolution and records its lateness in ns into two histograms with a
// sliding window of window: raw, and corrected for coordinated omission
// with resolution as the expected interval.
//
// post must run fn later, exactly once, without blocking the caller: for the
// Loop-delay probe it is the Loop's Post. With post == nil the callback runs
// on the probe goroutine itself, which measures how late a free goroutine
// wakes up (the scheduler probe). A post that never runs fn stalls the probe,
// which then records nothing more; Stop still returns.
//
// StartLagProbe panics if resolution or window is not positive. Stop stops
// the probe.
func StartLagProbe(post func(fn func()), resolution, window time.Duration) *LagProbe {
	return startLagProbe(post, resolution, window, waitFD)
}

func startLagProbe(post func(fn func()), resolution, window time.Duration, wait waitMode) *LagProbe {
	if resolution <= 0 {
		panic("probe: resolution must be > 0")
	}
	if window <= 0 {
		panic("probe: window must be > 0")
	}
	p := &LagProbe{
		post: post,
		res:  resolution,
		pace: pace.Every{Period: resolution},
		wait: wait,
		raw:  hist.NewRecorder(window, nil),
		corr: hist.NewRecorder(window, nil),
		ran:  make(chan time.Time, 1),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	if wait == waitFD {
		fd, err := timerfd.New()
		if err != nil {
			p.wait = waitTimer
		} else {
			p.fd = fd
		}
	}
	p.sampleFn = p.sample
	p.t0 = time.Now()
	go p.run()
	return p
}

// sample is the callback handed to post. It only reads the clock and hands
// the reading back: recording happens on the probe goroutine, so the Loop
// never waits on a reader of the histograms.
func (p *LagProbe) sample() {
	select {
	case p.ran <- time.Now():
	default: // post ran fn twice: keep the first reading
	}
}

func (p *LagProbe) run() {
	defer guard.Recover() // a bug here reaches offtop's crash handler: terminal restored
	defer close(p.done)
	w := waitState{fd: p.fd}
	k := int64(1)
	due := p.t0.Add(p.pace.Due(k))
	for {
		if !p.sleepUntil(due, &w) {
			return
		}
		p.inflight.Store(due.UnixNano())
		if p.post == nil {
			p.sample()
		} else {
			p.post(p.sampleFn)
		}
		var ran time.Time
		select {
		case ran = <-p.ran:
		case <-p.stop:
			return
		}
		p.inflight.Store(0)
		late := int64(ran.Sub(due))
		p.raw.Record(late)
		p.corr.RecordCorrected(late, int64(p.res))
		if f := p.observe.Load(); f != nil {
			(*f)(time.Duration(late))
		}
		var missed int64
		k, missed = p.pace.Next(ran.Sub(p.t0), k)
		due = p.t0.Add(p.pace.Due(k))
		if missed > 0 {
			p.missed.Add(missed)
		}
	}
}

// waitState is the probe goroutine's means of waiting.
type waitState struct {
	fd    *timerfd.Timer // nil: use the timer (or sleep)
	timer *time.Timer    // created on first use, then reused
}

// sleepUntil waits until due and reports false if the probe was stopped.
func (p *LagProbe) sleepUntil(due time.Time, w *waitState) bool {
	for {
		select {
		case <-p.stop:
			return false
		default:
		}
		d := time.Until(due)
		if d <= 0 {
			return true
		}
		switch {
		case w.fd != nil:
			if err := w.fd.Sleep(d); err != nil {
				// Closed by Stop (seen at the top of the loop), or broken:
				// the timer takes over.
				w.fd = nil
			}
		case p.wait == waitSleep:
			time.Sleep(min(d, maxSleepChunk))
		default:
			if w.timer == nil {
				w.timer = time.NewTimer(d)
			} else {
				w.timer.Reset(d)
			}
			select {
			case <-w.timer.C:
			case <-p.stop:
				w.timer.Stop()
				return false
			}
		}
	}
}

// Observe hands every sample's lateness from now on to fn (nil: none), on
// the probe goroutine, after it is recorded: the session's per-size
// histograms. fn must not block; it is not called for a stall in flight.
func (p *LagProbe) Observe(fn func(late time.Duration)) {
	if fn == nil {
		p.observe.Store(nil)
		return
	}
	p.observe.Store(&fn)
}

// Stats returns the probe's figures: windows and since-reset summaries,
// raw and corrected. Summaries with Count 0 have no data ("n/a"). The four
// summaries are read one after the other, so a sample recorded meanwhile may
// be in some and not others.
func (p *LagProbe) Stats() LagStats {
	return LagStats{
		Corrected:    p.corr.Window(),
		Raw:          p.raw.Window(),
		CorrectedAll: p.corr.Total(),
		RawAll:       p.raw.Total(),
		Missed:       p.missed.Load(),
		Resolution:   p.res,
		Stalled:      stalled(p.inflight.Load(), time.Now(), p.res),
	}
}

// stalled is how late the sample in flight (due at dueNs, 0: none) is at
// now, when that is more than one resolution; else 0. A Loop blocked for
// good records no sample at all, so without this its histograms empty out
// and read n/a instead of "stuck".
func stalled(dueNs int64, now time.Time, res time.Duration) time.Duration {
	if dueNs == 0 {
		return 0
	}
	if late := now.Sub(time.Unix(0, dueNs)); late > res {
		return late
	}
	return 0
}

// Reset empties both histograms (window and since-reset) and Missed. The
// schedule is not changed.
func (p *LagProbe) Reset() {
	p.raw.Reset()
	p.corr.Reset()
	p.missed.Store(0)
}

// Stop stops the probe and waits for its goroutine to exit. It does not wait
// for a sample in flight: it returns even if the Loop is closed or stalled
// forever. Safe to call more than once.
func (p *LagProbe) Stop() {
	p.stopOnce.Do(func() {
		close(p.stop)
		if p.fd != nil {
			p.fd.Close() // wakes the probe goroutine if it waits on fd
		}
	})
	<-p.done
}
