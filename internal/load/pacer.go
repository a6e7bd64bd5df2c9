package load

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/timerfd"
)

// pacer is vegeta's Pacer for one target: request n (from 0) is due at
// n*interval after the attack began, sent at once when overdue (no
// catching up in bursts beyond that: each overdue request goes as soon
// as vegeta takes it).
//
// Where there is a timerfd (Linux) Pace itself waits for the due time on
// it and returns no wait: vegeta's time.Sleep wakes up to a millisecond
// late (the runtime's poller waits whole ms), and that lateness would be
// read as the service's, the latency running from the due time.
type pacer struct {
	interval time.Duration
	base     time.Time    // read before the attack began
	off      atomic.Int64 // the attack's start after base, ns: the least seen
	sent     atomic.Int64 // requests handed to vegeta's workers
	sends    *hist.Recorder
	fd       *timerfd.Timer // nil: vegeta sleeps; closed by close
}

func newPacer(interval, window time.Duration) *pacer {
	p := &pacer{interval: interval, sends: hist.NewRecorder(window, nil)}
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
	wait := time.Duration(hits)*p.interval - elapsed
	if p.fd == nil || wait <= 0 {
		return wait, false
	}
	if err := p.fd.Sleep(wait); err != nil {
		return 0, true // closed: the load is stopping
	}
	return 0, false
}

// Rate is vegeta's: the pacer's constant rate per second at any time.
func (p *pacer) Rate(time.Duration) float64 { return float64(time.Second) / float64(p.interval) }

// began is when the attack began.
func (p *pacer) began() time.Time { return p.base.Add(time.Duration(p.off.Load())) }

// due is when request seq (from 0) was due.
func (p *pacer) due(seq uint64) time.Time { return p.began().Add(time.Duration(seq) * p.interval) }
