package scenarios

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"
)

// Defaults of the stall scenario: a 100 ms stall every 1 s, a pattern whose
// true p99 and max are known (stall).
const (
	DefaultStallDuration = 100 * time.Millisecond
	DefaultStallPeriod   = time.Second
)

// stall blocks the Loop for exactly D every P, the first at once. It has no
// pool work; it is the probe's calibration: for a request arriving at a
// random moment the truth is p99 = D - 0.01 P (90 ms), max = D.
//
// Stop cuts a stall in progress short (within microseconds: the spin
// watches the context), so a run ends at once even with a 20s stall; the
// cut stall is counted (stalls_cut) and its length so far is last_stall_ms,
// and the probe, its sample now run, records it as it would a full one.
type stall struct {
	base
	period time.Duration
	d      atomic.Int64 // stall length in ns; [ and ] step it by 10 ms

	env   Env
	n     atomic.Int64 // stalls run to their end
	cut   atomic.Int64 // stalls cut short by Stop
	short atomic.Int64 // stalls that ran shorter than asked, not cut (never expected)
	last  atomic.Int64 // measured length of the last stall (a cut one: so far), ns
}

func newStall(c Config) *stall {
	s := &stall{period: c.StallPeriod}
	if s.period <= 0 {
		s.period = DefaultStallPeriod
	}
	d := c.StallDuration
	if d <= 0 {
		d = DefaultStallDuration
	}
	s.d.Store(int64(d))
	return s
}

func (s *stall) Name() string { return "stall" }

func (s *stall) Look() string {
	d := time.Duration(s.d.Load())
	return fmt.Sprintf("truth for a random arrival: max %v, p99 %v; corrected reads it, raw doesn't",
		d, max(d-s.period/100, 0).Round(time.Millisecond))
}

func (s *stall) Start(env Env) error {
	s.env = env
	s.begin()
	s.goSafe(func() {
		k := 0
		next := func() {
			k++
			// A request arrives at a random moment, not in step with the
			// probe: stall k starts stallPhase(k) after its due time, so
			// stalls fall at every phase of a 10ms probe and the max reads D.
			if !s.sleep(stallPhase(k)) {
				return
			}
			d := time.Duration(s.d.Load())
			env.Post(func() { s.run(d) })
		}
		// the first at once (on resume, for a run that starts paused),
		// then one every period
		if !s.waitRunning() {
			return
		}
		next()
		s.every(s.period, nil, next)
	})
	return nil
}

// run is one stall, on the Loop: a spin for d, cut short by Stop. A stall
// whose turn comes after Stop does not start.
func (s *stall) run(d time.Duration) {
	if s.stopped() {
		return
	}
	took, cut := spin(s.done(), d)
	s.last.Store(int64(took))
	switch {
	case cut:
		s.cut.Add(1)
	case took < d:
		s.short.Add(1)
		s.n.Add(1)
	default:
		s.n.Add(1)
	}
}

// stallPhase is frac(k * golden ratio) of 10ms: a low-discrepancy sequence
// of offsets that covers every phase of a 10ms probe evenly.
func stallPhase(k int) time.Duration {
	const phi = 0.6180339887498949
	f := float64(k) * phi
	return time.Duration((f - math.Floor(f)) * float64(10*time.Millisecond))
}

// spin busy-waits on the clock for d, or until stop closes (cut), and
// returns how long it took.
func spin(stop <-chan struct{}, d time.Duration) (took time.Duration, cut bool) {
	start := time.Now()
	for time.Since(start) < d {
		select {
		case <-stop:
			return time.Since(start), true
		default:
		}
	}
	return time.Since(start), false
}

// Stop cuts a stall in progress short and waits for the driver. It does
// not wait for the Loop: a stall callback still queued there returns at
// once. Safe twice.
func (s *stall) Stop() { s.halt(nil) }

func (s *stall) Status() Status {
	d := time.Duration(s.d.Load())
	return Status{
		Load: fmt.Sprintf("%v stall every %v", d, s.period),
		Readouts: []Readout{
			Millis("stall_ms", "stall", d, true),
			Millis("period_ms", "every", s.period, true),
			Num("stalls", "stalls", float64(s.n.Load())),
			Num("stalls_cut", "cut short", float64(s.cut.Load())),
			Millis("last_stall_ms", "last stall", time.Duration(s.last.Load()), s.n.Load()+s.cut.Load() > 0),
			Bool("answer_ok", "answer ok", s.short.Load() == 0),
		},
	}
}

func (s *stall) SetLoad(delta int) {
	d := time.Duration(s.d.Load()) + time.Duration(clampSteps(delta, int(s.period/(10*time.Millisecond))))*10*time.Millisecond
	s.d.Store(int64(min(max(d, 10*time.Millisecond), s.period)))
}

func (s *stall) Reset() { s.n.Store(0); s.short.Store(0); s.cut.Store(0) }
