package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
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

// ErrTarget wraps every error of Check: a target the service does not
// serve or a service that cannot be reached.
var ErrTarget = errors.New("load target")

// Check sends one GET to each target of spec at base (http://host:port)
// and says which the service does not serve: no answer within
// CheckTimeout (refused, reset, timed out), or 404 or 405 (no such route
// for a GET). Any other answer passes, an error status too.
func Check(base string, spec Spec) error {
	c := &http.Client{Timeout: CheckTimeout, CheckRedirect: noRedirect}
	defer c.CloseIdleConnections()
	for _, t := range spec {
		resp, err := c.Get(base + t.Path)
		if err != nil {
			return fmt.Errorf("%w: %s%s: %s", ErrTarget, base, t.Path, why(err))
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
			return fmt.Errorf("%w: %s%s answers %s (no such endpoint for a GET)", ErrTarget, base, t.Path, resp.Status)
		}
	}
	return nil
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// why is err in a few words: the cause under the URL and the syscall.
func why(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.As(err, &ne) && ne.Timeout():
		return "no answer within the timeout"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

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
	heldLat *hist.Exact
	heldErr int64
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
	for _, t := range o.Spec {
		tg := &target{Target: t, l: l, interval: time.Second / time.Duration(t.Rate),
			lat: hist.NewRecorder(o.Window, nil), late: hist.NewRecorder(o.Window, nil), errs: hist.NewRecorder(o.Window, nil)}
		tg.pacer = newPacer(tg.interval, o.Window)
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
	defer tg.hold(due, end, r.Code == 0 && !timedOut(r.Error))
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

// hold files a result due at due and ended at end in the figures since
// Mark (failed: no answer, nor a timeout), if it was due at or after it.
func (tg *target) hold(due, end time.Time, failed bool) {
	tg.heldMu.Lock()
	defer tg.heldMu.Unlock()
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

// BySize is target's latency per pool size (SetSize): the answers (and
// timeouts) of the requests due while each size was in force, from their
// due time, since the load began; nil for a path not in the spec.
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
		tg.heldEnd, tg.heldDue = now, tg.pacer.sent.Load()
		tg.heldMu.Unlock()
	}
}

// WaitHeld waits until every request sent by EndHold has ended (an
// answer, an error or its Timeout), so Held holds each, a stalled
// service's late answers too; at most limit (poll: how often it looks).
// It reports whether they all had.
func (l *Load) WaitHeld(limit, poll time.Duration) bool {
	end := time.Now().Add(limit)
	for {
		all := true
		for _, tg := range l.targets {
			tg.heldMu.Lock()
			due := tg.heldDue
			tg.heldMu.Unlock()
			if tg.ended.Load() < due {
				all = false
			}
		}
		if all || !time.Now().Before(end) {
			return all
		}
		time.Sleep(poll)
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
		if span = min(span, time.Since(tg.pacer.began())); span > 0 {
			ft.RatePerS = session.Rate(float64(sends.Count) / span.Seconds())
		}
		if p := tg.lastErr.Load(); p != nil {
			ft.Error = *p
		}
		out.Targets[i] = ft
	}
	return out
}

// pacer is vegeta's Pacer for one target: request n (from 0) is due at
// n*interval after the attack began, sent at once when overdue (no
// catching up in bursts beyond that: each overdue request goes as soon
// as vegeta takes it).
type pacer struct {
	interval time.Duration
	base     time.Time    // read before the attack began
	off      atomic.Int64 // the attack's start after base, ns: the least seen
	sent     atomic.Int64 // requests handed to vegeta's workers
	sends    *hist.Recorder
}

func newPacer(interval, window time.Duration) *pacer {
	p := &pacer{interval: interval, sends: hist.NewRecorder(window, nil)}
	p.off.Store(math.MaxInt64)
	return p
}

// Pace is vegeta's: the wait before request hits (from 0) is due.
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
	return time.Duration(hits)*p.interval - elapsed, false
}

// Rate is vegeta's: the pacer's constant rate per second at any time.
func (p *pacer) Rate(time.Duration) float64 { return float64(time.Second) / float64(p.interval) }

// began is when the attack began.
func (p *pacer) began() time.Time { return p.base.Add(time.Duration(p.off.Load())) }

// due is when request seq (from 0) was due.
func (p *pacer) due(seq uint64) time.Time { return p.began().Add(time.Duration(seq) * p.interval) }

// conns are a load's open connections, so Stop can cut the requests in
// flight.
type conns struct {
	mu     sync.Mutex
	open   map[net.Conn]bool
	closed bool
	d      net.Dialer
}

func (c *conns) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := c.d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		conn.Close()
		return nil, net.ErrClosed
	}
	tc := &trackedConn{Conn: conn, c: c}
	c.open[tc] = true
	return tc, nil
}

func (c *conns) closeAll() {
	c.mu.Lock()
	c.closed = true
	open := c.open
	c.open = map[net.Conn]bool{}
	c.mu.Unlock()
	for conn := range open {
		conn.Close()
	}
}

// trackedConn leaves its set when closed.
type trackedConn struct {
	net.Conn
	c    *conns
	once sync.Once
}

func (t *trackedConn) Close() error {
	t.once.Do(func() {
		t.c.mu.Lock()
		delete(t.c.open, t)
		t.c.mu.Unlock()
	})
	return t.Conn.Close()
}

// router matches a target's path to the route the program's mux serves
// it under, by an http.ServeMux holding the routes' patterns: the same
// matching the program's mux does when it is one. An Express route
// pattern (a Node program's: /users/:id, /files/*) is held as the
// ServeMux pattern that matches the same paths (/users/{id},
// /files/{rest...}) and matched back to its own name.
type router struct {
	key   string
	mux   *http.ServeMux
	names map[string]string // ServeMux pattern -> route, where they differ
}

// match is a function from a target's path to its route ("" when none
// of routes serves it); the mux is made again only when routes change.
func (r *router) match(routes []session.Endpoint) func(string) string {
	var b strings.Builder
	for _, e := range routes {
		b.WriteString(e.Route)
		b.WriteByte(0)
	}
	if r.mux == nil || r.key != b.String() {
		r.key, r.mux, r.names = b.String(), http.NewServeMux(), map[string]string{}
		for _, e := range routes {
			if !strings.Contains(e.Route, "/") {
				continue
			}
			pattern := expressPattern(e.Route)
			if handle(r.mux, pattern) && pattern != e.Route {
				r.names[pattern] = e.Route
			}
		}
	}
	mux, names := r.mux, r.names
	return func(path string) string {
		req, err := http.NewRequest(http.MethodGet, "http://localhost"+path, nil)
		if err != nil {
			return ""
		}
		_, pattern := mux.Handler(req)
		if name, ok := names[pattern]; ok {
			return name
		}
		return pattern
	}
}

// expressPattern is route as a ServeMux pattern: each Express segment
// ":name" as "{name}" and a last "*" as "{rest...}" (":name" and "*" stay
// where they cannot be translated, e.g. ":id?" or "a*b", so the mux
// matches them as themselves or refuses them); route itself when it has
// neither.
func expressPattern(route string) string {
	if !strings.ContainsAny(route, ":*") {
		return route
	}
	segs := strings.Split(route, "/")
	for i, seg := range segs {
		name, ok := strings.CutPrefix(seg, ":")
		switch {
		case ok && name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == "":
			segs[i] = "{" + name + "}"
		case seg == "*" && i == len(segs)-1:
			segs[i] = "{rest...}"
		}
	}
	return strings.Join(segs, "/")
}

// handle registers pattern on mux and reports whether the mux took it;
// a pattern the mux refuses (a route label that is a path, not a
// pattern, may be) is left out.
func handle(mux *http.ServeMux, pattern string) (ok bool) {
	defer func() { ok = recover() == nil }()
	mux.Handle(pattern, http.NotFoundHandler())
	return true
}
