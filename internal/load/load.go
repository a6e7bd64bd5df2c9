package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/session"
)

// Bounds of a load's requests.
const (
	// Timeout is how long a request waits for its answer; past it the
	// request counts as an error, and its time, from when it was due, in
	// the latency.
	Timeout = 5 * time.Second
	// LateAfter is how far behind its due time a request may be sent
	// and still count as on time.
	LateAfter = 5 * time.Millisecond
	// CheckTimeout bounds each request of Check.
	CheckTimeout = 2 * time.Second
	// maxBody is the most of an answer's body kept; the rest is read and
	// dropped.
	maxBody = 1 << 10
)

// Options are a load's.
type Options struct {
	// Base is the service's URL without a path: http://host:port.
	Base string
	Spec Spec
	// Window is the span of the figures' sliding window (> 0).
	Window time.Duration
}

// Load is a running load: one vegeta attack per target.
type Load struct {
	spec    Spec
	base    string
	conns   *conns
	targets []*target
	wg      sync.WaitGroup

	mu     sync.Mutex // guards router
	router router

	sizeMu sync.Mutex // guards sizes
	sizes  []sizeStretch
}

// target is one Target's attack and figures.
type target struct {
	Target
	l        *Load
	interval time.Duration // between due times: 1s/Rate
	atk      *vegeta.Attacker
	pacer    *pacer
	lat      *hist.Recorder
	late     *hist.Recorder
	errs     *hist.Recorder
	status   [5]atomic.Int64
	ended    atomic.Int64 // results recorded
	errors   atomic.Int64
	lateN    atomic.Int64
	lastErr  atomic.Pointer[string]

	// held is the figures since Mark, of requests due at or after it.
	heldMu  sync.Mutex
	heldAt  time.Time // zero: no Mark yet, nothing held
	heldEnd time.Time // zero: the hold runs on (EndHold)
	heldDue int64     // requests sent by EndHold: those Held waits for
	// endedAll is every result filed, seqs the largest Seq filed plus
	// one; endedBelow those of the requests sent by EndHold (Seq <
	// heldDue) once it has run: WaitHeld's count.
	endedAll, endedBelow int64
	seqs                 uint64
	heldLat              *hist.Exact
	heldErr              int64
	// bySize is the latency of the requests due while each pool size was
	// in force (SetSize), keyed by workers; guarded by heldMu.
	bySize map[int]*hist.Exact
}

// Start begins o.Spec's load against o.Base. Stop ends it.
func Start(o Options) (*Load, error) {
	if len(o.Spec) == 0 {
		return nil, fmt.Errorf("%w: no target", ErrSpec)
	}
	if o.Window <= 0 {
		return nil, errors.New("load: window must be > 0")
	}
	l := &Load{spec: o.Spec, base: strings.TrimRight(o.Base, "/"), conns: &conns{open: map[net.Conn]bool{}}}
	for i, t := range o.Spec {
		tg := &target{Target: t, l: l, interval: time.Second / time.Duration(t.Rate),
			lat: hist.NewRecorder(o.Window, nil), late: hist.NewRecorder(o.Window, nil), errs: hist.NewRecorder(o.Window, nil)}
		tg.pacer = newPacer(tg.interval, o.Window, targetStep(i), leadFor(o.Spec.Rate()))
		tr := &http.Transport{
			DialContext:         l.conns.dial,
			MaxIdleConnsPerHost: vegeta.DefaultConnections,
			IdleConnTimeout:     30 * time.Second,
			DisableCompression:  true,
		}
		client := &http.Client{Transport: tr, Timeout: Timeout, CheckRedirect: noRedirect}
		tg.atk = vegeta.NewAttacker(vegeta.Client(client), vegeta.MaxBody(maxBody))
		l.targets = append(l.targets, tg)
	}
	for _, tg := range l.targets {
		vt := vegeta.NewStaticTargeter(vegeta.Target{Method: http.MethodGet, URL: l.base + tg.Path})
		tg.pacer.base = time.Now()
		res := tg.atk.Attack(vt, tg.pacer, 0, tg.Path)
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for r := range res {
				tg.record(r)
			}
		}()
	}
	return l, nil
}

// Stop ends the load: no request is sent after it returns, and those in
// flight are cut (their connections closed), not waited for.
func (l *Load) Stop() {
	for _, tg := range l.targets {
		tg.atk.Stop()
		tg.pacer.close()
	}
	l.conns.closeAll()
	l.wg.Wait()
}

// Spec is the load's spec.
func (l *Load) Spec() Spec { return l.spec }

// record counts r, a result of tg's attack.
//
// vegeta's Result.Timestamp is when a worker took the request up, and its
// Latency runs from there: a request it could not send on time would
// read as fast as if it had been. The figures here run from the request's
// due time instead, the pacer's schedule for its sequence number.
func (tg *target) record(r *vegeta.Result) {
	defer tg.ended.Add(1)
	due := tg.pacer.due(r.Seq)
	end := r.End()
	defer tg.hold(r.Seq, due, end, r.Code == 0 && !timedOut(r.Error))
	if late := r.Timestamp.Sub(due); late > 0 {
		tg.late.RecordAt(hist.Sample{NS: int64(late), At: r.Timestamp})
		if late > LateAfter {
			tg.lateN.Add(1)
		}
	} else {
		tg.late.RecordAt(hist.Sample{NS: 0, At: r.Timestamp})
	}
	took := hist.Sample{NS: int64(end.Sub(due)), At: end}
	if r.Code != 0 {
		tg.status[min(max(int(r.Code)/100, 1), 5)-1].Add(1)
		tg.lat.RecordAt(took)
		return
	}
	tg.errors.Add(1)
	tg.errs.RecordAt(took)
	msg := r.Error
	if timedOut(msg) {
		tg.lat.RecordAt(took) // a timeout is an answer at least this late
		msg = "no answer within " + Timeout.String()
	} else {
		msg = shortError(msg)
	}
	tg.lastErr.Store(&msg)
}

// timedOut says an error text is a request's timeout.
func timedOut(msg string) bool {
	return strings.Contains(msg, "Client.Timeout") || strings.Contains(msg, "deadline exceeded")
}

// hold files result seq, due at due and ended at end, in the figures
// since Mark (failed: no answer, nor a timeout) if it was due at or after
// it, and counts it ended for WaitHeld.
func (tg *target) hold(seq uint64, due, end time.Time, failed bool) {
	tg.heldMu.Lock()
	defer tg.heldMu.Unlock()
	tg.endedAll++
	tg.seqs = max(tg.seqs, seq+1)
	if !tg.heldEnd.IsZero() && seq < uint64(tg.heldDue) {
		tg.endedBelow++
	}
	if n, ok := tg.l.sizeAt(due); ok && !failed {
		e := tg.bySize[n]
		if e == nil {
			if tg.bySize == nil {
				tg.bySize = map[int]*hist.Exact{}
			}
			e = hist.NewExact()
			tg.bySize[n] = e
		}
		e.Record(int64(end.Sub(due)))
	}
	if tg.heldAt.IsZero() || due.Before(tg.heldAt) || !tg.heldEnd.IsZero() && !due.Before(tg.heldEnd) {
		return
	}
	if failed {
		tg.heldErr++
		return
	}
	tg.heldLat.Record(int64(end.Sub(due)))
}

// sizeStretch is a pool size in force from at (SetSize).
type sizeStretch struct {
	at      time.Time
	workers int
}

// maxStretches bounds the size changes kept to file results by; the
// oldest go first (a result is due at most Timeout before it is filed).
const maxStretches = 256

// SetSize says the program's pool is at workers from now: the requests
// due from now on are filed under that size (BySize) until the next.
func (l *Load) SetSize(workers int) {
	l.sizeMu.Lock()
	defer l.sizeMu.Unlock()
	if n := len(l.sizes); n > 0 && l.sizes[n-1].workers == workers {
		return
	}
	l.sizes = append(l.sizes, sizeStretch{time.Now(), workers})
	if len(l.sizes) > maxStretches {
		l.sizes = slices.Delete(l.sizes, 0, len(l.sizes)-maxStretches)
	}
}

// sizeAt is the size in force at t; false before the first SetSize.
func (l *Load) sizeAt(t time.Time) (int, bool) {
	if l == nil {
		return 0, false
	}
	l.sizeMu.Lock()
	defer l.sizeMu.Unlock()
	for i := len(l.sizes) - 1; i >= 0; i-- {
		if !t.Before(l.sizes[i].at) {
			return l.sizes[i].workers, true
		}
	}
	return 0, false
}

// ResetSizes forgets BySize's figures: from now on only the requests due
// from now are filed, under the size in force now until the next SetSize.
func (l *Load) ResetSizes() {
	now := time.Now()
	l.sizeMu.Lock()
	if n := len(l.sizes); n > 0 {
		l.sizes = append(l.sizes[:0], sizeStretch{now, l.sizes[n-1].workers})
	}
	l.sizeMu.Unlock()
	for _, tg := range l.targets {
		tg.heldMu.Lock()
		tg.bySize = nil
		tg.heldMu.Unlock()
	}
}

// BySize is target's latency per pool size (SetSize): the answers (and
// timeouts) of the requests due while each size was in force, from their
// due time, since the load began or the last ResetSizes; nil for a path
// not in the spec.
func (l *Load) BySize(path string) map[int]hist.Summary {
	for _, tg := range l.targets {
		if tg.Path != path {
			continue
		}
		tg.heldMu.Lock()
		defer tg.heldMu.Unlock()
		out := make(map[int]hist.Summary, len(tg.bySize))
		for n, e := range tg.bySize {
			out[n] = e.Summary()
		}
		return out
	}
	return nil
}

// Mark starts the figures Held reads afresh: from now on, the requests
// due at or after now. A sweep marks the start of each measured hold.
func (l *Load) Mark() {
	now := time.Now()
	for _, tg := range l.targets {
		tg.heldMu.Lock()
		tg.heldAt, tg.heldEnd, tg.heldLat, tg.heldErr = now, time.Time{}, hist.NewExact(), 0
		tg.heldMu.Unlock()
	}
}

// EndHold ends the stretch Mark began: requests due from now on are not
// held. Those sent by now may still be in flight: WaitHeld waits for them.
func (l *Load) EndHold() {
	now := time.Now()
	for _, tg := range l.targets {
		tg.heldMu.Lock()
		// The requests sent by now: those vegeta's pacer counted, and any
		// a worker took before the pacer counted it (a result filed with
		// Seq at sent). Every result filed so far is among them.
		tg.heldEnd, tg.heldDue, tg.endedBelow = now, max(tg.pacer.sent.Load(), int64(tg.seqs)), tg.endedAll
		tg.heldMu.Unlock()
	}
}

// WaitHeld waits until every request sent by EndHold has ended (an
// answer, an error or its Timeout), so Held holds each, a stalled
// service's late answers too; at most limit (poll: how often it looks),
// and no longer than ctx lasts. It reports whether they all had. Requests
// sent after EndHold do not count: a stalled request is waited for
// however many later ones end.
func (l *Load) WaitHeld(ctx context.Context, limit, poll time.Duration) bool {
	end := time.NewTimer(limit)
	defer end.Stop()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		all := true
		for _, tg := range l.targets {
			tg.heldMu.Lock()
			if tg.endedBelow < tg.heldDue {
				all = false
			}
			tg.heldMu.Unlock()
		}
		if all {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-end.C:
			return false
		case <-tick.C:
		}
	}
}

// Held is one target's figures since Mark.
type Held struct {
	Target string
	// Latency is every answer (and timeout) of a request due since Mark,
	// from its due time; Errors the requests that got no answer.
	Latency hist.Summary
	Errors  int64
}

// Held is each target's figures since the last Mark, in the spec's
// order (zero before a Mark). Requests still in flight are not in them.
func (l *Load) Held() []Held {
	out := make([]Held, len(l.targets))
	for i, tg := range l.targets {
		tg.heldMu.Lock()
		out[i] = Held{Target: tg.Path, Errors: tg.heldErr}
		if tg.heldLat != nil {
			out[i].Latency = tg.heldLat.Summary()
		}
		tg.heldMu.Unlock()
	}
	return out
}

// shortError is vegeta's error text without the request's method and URL
// (net/http's url.Error prefix), e.g. "connection refused".
func shortError(s string) string {
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// Figures is the load's figures as the client measured them, each target
// matched to the program's route among routes (the Snapshot's
// Endpoints) that serves it.
func (l *Load) Figures(routes []session.Endpoint) *session.LoadClient {
	l.mu.Lock()
	match := l.router.match(routes)
	l.mu.Unlock()
	out := &session.LoadClient{Spec: l.spec.String(), Targets: make([]session.LoadTarget, len(l.targets))}
	for i, tg := range l.targets {
		lat := tg.lat.Window()
		errs := tg.errs.Window()
		late := tg.late.Window()
		sends, span := tg.pacer.sends.WindowSpan()
		sent := tg.pacer.sent.Load()
		ft := session.LoadTarget{
			Target: tg.Path, Route: match(tg.Path), AskedPerS: session.Rate(tg.Rate),
			Sent: sent, InFlight: max(sent-tg.ended.Load(), 0), Latency: lat, Errors: tg.errors.Load(), ErrorsWindow: errs.Count,
			Late: tg.lateN.Load(), LateMax: session.Millis(late.Max),
			Status: session.StatusCounts{S1xx: tg.status[0].Load(), S2xx: tg.status[1].Load(), S3xx: tg.status[2].Load(),
				S4xx: tg.status[3].Load(), S5xx: tg.status[4].Load()},
		}
		// The sends cover at least the slot the newest was due in: a
		// span shorter than one (the load's first moments) would read one
		// send in a millisecond as 1000/s.
		if span = max(min(span, time.Since(tg.pacer.began())), tg.interval); span > 0 {
			ft.RatePerS = session.Rate(float64(sends.Count) / span.Seconds())
		}
		if p := tg.lastErr.Load(); p != nil {
			ft.Error = *p
		}
		out.Targets[i] = ft
	}
	return out
}
