package load

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/timerfd"
)

// pacer is vegeta's Pacer for one target: one request in each slot of
// interval, request n (from 0) due at (n + slotAt(step, n))*interval
// after the attack began, sent at once when overdue (no catching up in
// bursts beyond that: each overdue request goes as soon as vegeta takes
// it). The rate is constant over any whole number of slots; the point
// within the slot moves, so that two targets whose intervals divide each
// other (50/s and 20/s) do not meet at the same phase every time, and a
// target's latency does not read the other's at one phase only.
//
// Where there is a timerfd (Linux) Pace itself waits for the due time on
// it and returns no wait: vegeta's time.Sleep wakes up to a millisecond
// late (the runtime's poller waits whole ms), and that lateness would be
// read as the service's, the latency running from the due time. It wakes
// lead before the due time and spins the rest, so that the machine's
// wake-up latency (a parked thread's, 0.25 ms at p99 on a 2-core VM) is
// not read as the service's either.
type pacer struct {
	interval time.Duration
	lead     time.Duration // spun before each due time: leadFor
	step     float64       // slotAt's, in (0, 1), irrational
	base     time.Time     // read before the attack began
	off      atomic.Int64  // the attack's start after base, ns: the least seen
	sent     atomic.Int64  // requests handed to vegeta's workers
	sends    *hist.Recorder
	fd       *timerfd.Timer // nil: vegeta sleeps; closed by close
}

// newPacer paces one request every interval; step places the slots'
// points, one step per target (targetStep); lead is how long before each
// due time Pace stops sleeping and spins (leadFor).
func newPacer(interval, window time.Duration, step float64, lead time.Duration) *pacer {
	p := &pacer{interval: interval, step: step, lead: lead, sends: hist.NewRecorder(window, nil)}
	p.off.Store(math.MaxInt64)
	if fd, err := timerfd.New(); err == nil {
		p.fd = fd
	}
	return p
}

// close ends a wait in Pace and makes every later Pace stop the attack.
// Safe to call at any time and more than once.
func (p *pacer) close() {
	if p.fd != nil {
		p.fd.Close()
	}
}

// Pace is vegeta's: the wait before request hits (from 0) is due, or 0
// once Pace has waited for it itself; stop once close has been called.
func (p *pacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	// The attack began elapsed before now: the earliest such reading is
	// the closest (a later one includes the time to get here).
	off := int64(time.Since(p.base) - elapsed)
	if off < p.off.Load() { // Pace runs on one goroutine: no lost update
		p.off.Store(off)
	}
	// vegeta calls Pace again as soon as it has handed a request to a
	// worker: hits is the requests sent so far.
	if n := int64(hits); n > p.sent.Load() {
		p.sends.RecordAt(hist.Sample{At: p.base.Add(time.Since(p.base))})
		p.sent.Store(n)
	}
	wait := p.at(hits) - elapsed
	if p.fd == nil || wait <= 0 {
		return wait, false
	}
	due := p.due(hits)
	if rest := time.Until(due); rest > p.lead {
		if err := p.fd.Sleep(rest - p.lead); err != nil {
			return 0, true // closed: the load is stopping
		}
	}
	for time.Now().Before(due) { // at most lead: spin to the due time
	}
	return 0, false
}

// leadFor is the lead of each pacer of a load of rate requests/s in all:
// maxLead, or less where the load's spinning would take over spinShare of
// a core.
func leadFor(rate int) time.Duration {
	return min(maxLead, time.Duration(spinShare*float64(time.Second)/float64(max(rate, 1))))
}

const (
	// maxLead covers the wake-up of a parked thread: p99 0.25 ms, the
	// idle Loop probe's on a 2-core VM (BENCHMARKS.md).
	maxLead = 300 * time.Microsecond
	// spinShare bounds a load's spinning: 2% of a core (maxLead a request
	// up to 66 requests/s in all, 20 µs at MaxRate).
	spinShare = 0.02
)

// Rate is vegeta's: the pacer's constant rate per second at any time.
func (p *pacer) Rate(time.Duration) float64 { return float64(time.Second) / float64(p.interval) }

// began is when the attack began.
func (p *pacer) began() time.Time { return p.base.Add(time.Duration(p.off.Load())) }

// due is when request seq (from 0) was due.
func (p *pacer) due(seq uint64) time.Time { return p.began().Add(p.at(seq)) }

// at is when request seq (from 0) is due after the attack began.
func (p *pacer) at(seq uint64) time.Duration {
	return time.Duration((float64(seq) + slotAt(p.step, seq)) * float64(p.interval))
}

// slotAt is where in its slot request n falls, in (0, 1): frac((n+1)*
// step), the Kronecker sequence, equidistributed for an irrational step
// (Weyl, 1916), so a few seconds of requests cover every phase of another
// target's schedule; from n+1, so that targets' first requests too fall
// at points of their own. Deterministic: a reader of the wire who knows
// the step and each request's X-Vegeta-Seq rebuilds its due time.
func slotAt(step float64, n uint64) float64 {
	_, f := math.Modf(float64(n%slotPeriod+1) * step)
	return f
}

// slotPeriod bounds n so that (n+1)*step keeps its fraction's precision
// (2^32 requests: over a year at 100/s).
const slotPeriod = 1 << 32

// targetStep is the step of the i-th target (from 0) of a spec:
// frac(sqrt(p)), p the (i+1)-th prime (2, 3, 5, ...). Square roots of
// distinct primes are linearly independent over the rationals, so no two
// targets' points keep a fixed phase to each other: at /ping=50/s beside
// /fib=20/s, 2.6% of /pings fall within 1 ms after a /fib's due time,
// as chance gives 2% (TestScheduleSpreadsPhases).
func targetStep(i int) float64 {
	p := 1
	for k := 0; k <= i; k++ {
		p = nextPrime(p)
	}
	_, f := math.Modf(math.Sqrt(float64(p)))
	return f
}

// nextPrime is the least prime above n >= 1.
func nextPrime(n int) int {
	for c := n + 1; ; c++ {
		prime := true
		for d := 2; d*d <= c; d++ {
			if c%d == 0 {
				prime = false
				break
			}
		}
		if prime {
			return c
		}
	}
}
