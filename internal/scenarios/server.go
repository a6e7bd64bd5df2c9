package scenarios

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/offtop/offtop/internal/hist"
)

// The server scenario's workload (seed 001 in docs/seeds.md: fibonacci(30)
// ~12 ms and fibonacci(37) ~380 ms of CPU in V8; Go runs them about 3x
// faster) and its health check (seed 000 s4: a /ping every 50 ms, 2 s
// timeout).
const (
	fastN       = 30
	slowN       = 37
	pingEvery   = 50 * time.Millisecond
	pingTimeout = 2 * time.Second
	maxClients  = 16
	// idleConnTimeout closes a client connection idle that long. In steady
	// state every connection is reused within 50 ms (a /ping) or at once
	// (a closed-loop client); the extra ones opened while /ping waits
	// behind the Loop (up to 40 at workers 0: one every 50 ms for up to
	// 2 s) are closed once the backlog clears, so the process's goroutines
	// (3 per connection: the client's read and write loops, the server's
	// conn) return to their baseline after a resize (the soak test).
	idleConnTimeout = 500 * time.Millisecond
)

// fib is the naive doubly recursive Fibonacci the seeds use as CPU work.
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

// fibCheckN is the size of the fib subtree fibUntil runs between two
// looks at its stop channels: fib(20) is about 22k calls, tens of
// microseconds.
const fibCheckN = 20

// fibUntil is fib(n), or ok false as soon as it sees either channel
// closed; it looks once per fib(fibCheckN) subtree.
func fibUntil(n int, stop1, stop2 <-chan struct{}) (v int, ok bool) {
	if n <= fibCheckN {
		select {
		case <-stop1:
			return 0, false
		case <-stop2:
			return 0, false
		default:
			return fib(n), true
		}
	}
	a, ok := fibUntil(n-1, stop1, stop2)
	if !ok {
		return 0, false
	}
	b, ok := fibUntil(n-2, stop1, stop2)
	return a + b, ok
}

// fibWant holds the answers clients check responses against.
var fibWant = map[int]string{fastN: "832040", slowN: "24157817"}

// endpoint is one route's client-side figures, and served its
// server-side ones: every request the route answered, from offtop's own
// clients or from outside (--no-load with autocannon), timed in the
// handler.
type endpoint struct {
	name   string // ping, fast, slow: the route without its slash
	lat    *hist.Recorder
	served *hist.Recorder
	cpu    cpuMeter
	done   atomic.Int64 // responses received
	errs   atomic.Int64 // failed or wrong responses
}

// serve records one request the route answered, d from arrival to
// response, in its window and in the session's size rows.
func (e *endpoint) serve(env Env, d time.Duration) {
	e.served.Record(int64(d))
	env.ObserveServed(e.name, d)
}

func newServer(c Config) *server {
	return &server{clients: 2, listen: c.Listen, startLoops: max(c.ServerLoops, 1)}
}

type server struct {
	base
	clients    int    // closed-loop clients per CPU endpoint; guarded by mu
	listen     string // address to listen on; "" is 127.0.0.1:0
	startLoops int

	// loopsMu guards loops and stoppedLoops (the Loops' readouts at
	// Stop); nLoops is len(loops), for the knobs.
	loopsMu      sync.Mutex
	loops        []*srvLoop
	stoppedLoops []Readout
	nLoops       atomic.Int32
	conns        atomic.Int64 // connections accepted

	env    Env
	srv    *loopback
	client *http.Client

	// mu guards clients, runs (the client goroutines' cancel funcs per
	// endpoint) and the recorders' replacement on Reset.
	mu         sync.Mutex
	runs       map[string][]context.CancelFunc
	fast, slow *endpoint
	ping       *endpoint
	wrong      atomic.Int64 // responses with a wrong answer

	// handlers counts the requests in a handler, so Stop can wait for
	// them; reqMu orders each Add before Stop's Wait (closing set).
	reqMu    sync.RWMutex
	closing  bool
	handlers sync.WaitGroup
}

// handlerGrace bounds how long Stop waits for the handlers still running:
// each gives up its fib when Stop begins, but one waiting for a paused
// pool does not return until the pool goes.
const handlerGrace = time.Second

// track counts h's requests in handlers; once Stop began it answers 503.
func (s *server) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.reqMu.RLock()
		if s.closing {
			s.reqMu.RUnlock()
			http.Error(w, "stopping", http.StatusServiceUnavailable)
			return
		}
		s.handlers.Add(1)
		s.reqMu.RUnlock()
		defer s.handlers.Done()
		h.ServeHTTP(w, r)
	})
}

// waitHandlers waits, up to handlerGrace, for the handlers running; no
// handler starts after it is called.
func (s *server) waitHandlers() {
	s.reqMu.Lock()
	s.closing = true
	s.reqMu.Unlock()
	idle := make(chan struct{})
	go func() { s.handlers.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-time.After(handlerGrace):
	}
}

func (s *server) Name() string { return "server" }

func (s *server) Look() string {
	if s.nLoops.Load() > 1 {
		return "Loops add cores, not a free Loop: /ping still waits behind fib (one heap here)"
	}
	return "at workers 0 /ping waits behind fib on the Loop; with a pool the Loop answers"
}

func (s *server) newEndpoint(name string) *endpoint {
	return &endpoint{name: name, lat: hist.NewRecorder(s.env.Window, s.now), served: hist.NewRecorder(s.env.Window, s.now)}
}

func (s *server) Start(env Env) error {
	s.env = env
	s.fast, s.slow, s.ping = s.newEndpoint("fast"), s.newEndpoint("slow"), s.newEndpoint("ping")
	mux := http.NewServeMux()
	mux.HandleFunc("/ping", s.handlePing)
	mux.HandleFunc("/fast", s.handleFib(fastN, s.fast))
	mux.HandleFunc("/slow", s.handleFib(slowN, s.slow))
	s.setLoops(s.startLoops) // before the first request picks a Loop
	srv, err := serveLoopback("server", s.listen, &http.Server{Handler: s.track(mux), ConnContext: s.connContext},
		func(error) { s.wrong.Add(1) })
	if err != nil {
		s.stopLoops()
		return err
	}
	s.srv = srv
	s.client = &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: 2*maxClients + 64,
		IdleConnTimeout:     idleConnTimeout,
		DisableCompression:  true,
	}}
	s.begin()
	s.runs = map[string][]context.CancelFunc{}
	s.goSafe(s.pinger)
	s.mu.Lock()
	s.setClients(s.clients)
	s.mu.Unlock()
	return nil
}

// handlePing answers on the connection's Loop, as Node's main thread
// would: while that Loop runs fib (workers 0), the reply waits.
func (s *server) handlePing(w http.ResponseWriter, r *http.Request) {
	t := time.Now()
	s.loopFor(r).do(func() {})
	io.WriteString(w, "ok")
	s.ping.serve(s.env, time.Since(t))
}

// handleFib accepts the request on the connection's Loop, then runs fib(n)
// as a pool task (on a worker, or on Loop 0 when the pool size is 0), or
// on the connection's own Loop at workers 0 (onOwnLoop), and replies.
func (s *server) handleFib(n int, e *endpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t := time.Now()
		defer func() { e.serve(s.env, time.Since(t)) }()
		l := s.loopFor(r)
		l.do(func() {})
		var v int
		work := func() {
			if r.Context().Err() != nil {
				return // the client is gone; do not burn CPU for nobody
			}
			e.cpu.run(func() { v, _ = fibUntil(n, r.Context().Done(), s.done()) })
		}
		var err error
		if s.onOwnLoop(l) {
			l.do(work)
		} else {
			err = s.env.Offload(work)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, strconv.Itoa(v))
	}
}

// setClients starts or stops closed-loop clients so each CPU endpoint has n.
// Callers hold mu.
func (s *server) setClients(n int) {
	s.clients = n
	for _, route := range []string{"/fast", "/slow"} {
		e := s.fast
		if route == "/slow" {
			e = s.slow
		}
		runs := s.runs[route]
		for len(runs) > n {
			runs[len(runs)-1]()
			runs = runs[:len(runs)-1]
		}
		for len(runs) < n {
			ctx, cancel := context.WithCancel(s.ctx)
			runs = append(runs, cancel)
			s.goSafe(func() { s.closedLoop(ctx, route, e) })
		}
		s.runs[route] = runs
	}
}

// closedLoop sends the next request when the previous one answers
// (autocannon's model), on a connection of its own, as each of
// autocannon's connections is: so --loops spreads clients, not requests,
// across the Loops, as cluster does.
func (s *server) closedLoop(ctx context.Context, route string, e *endpoint) {
	tr := &http.Transport{MaxIdleConnsPerHost: 1, IdleConnTimeout: idleConnTimeout, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	want := fibWant[fastN]
	if route == "/slow" {
		want = fibWant[slowN]
	}
	for s.waitRunningCtx(ctx) {
		t := time.Now()
		body, err := httpGet(ctx, client, s.srv.URL+route)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			e.errs.Add(1)
			continue
		}
		if body != want {
			s.wrong.Add(1)
		}
		e.done.Add(1)
		e.lat.Record(int64(time.Since(t)))
	}
}

// pinger sends a /ping every 50 ms, open-loop: each in its own goroutine at
// its due time, so a slow answer never delays the next ping (no coordinated
// omission). A ping without an answer within 2 s is a failure.
func (s *server) pinger() {
	// Pause stops the pings too: they are HTTP traffic like the rest (~2%
	// of a core at 20 requests/s), and a paused offtop should cost next to
	// nothing. The probes go on measuring the Loop.
	s.every(pingEvery, nil, func() {
		s.goSafe(func() {
			t := time.Now()
			body, err := s.get(s.ctx, "/ping", pingTimeout)
			if s.ctx.Err() != nil {
				return
			}
			if err != nil || body != "ok" {
				s.ping.errs.Add(1)
				return
			}
			s.ping.done.Add(1)
			s.ping.lat.Record(int64(time.Since(t)))
			s.env.ObserveHeadline(time.Since(t))
		})
	})
}

// get fetches route and returns the body; timeout 0 means none.
func (s *server) get(ctx context.Context, route string, timeout time.Duration) (string, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	return httpGet(ctx, s.client, s.srv.URL+route)
}

// Stop cancels the clients and the pinger, closes the server and waits for
// every goroutine the scenario started.
func (s *server) Stop() {
	s.halt(func() {
		s.srv.Close()
		s.client.CloseIdleConnections()
		s.waitHandlers() // before the Loops close: a request on one would run on a goroutine of its own
		s.stopLoops()
	})
}

func (s *server) Status() Status {
	s.mu.Lock()
	n := s.clients
	s.mu.Unlock()
	fastRPS, fw := windowRate(s.fast.lat)
	slowRPS, sw := windowRate(s.slow.lat)
	pw := s.ping.lat.Window()
	rs := Percentiles("ping", "ping", pw)
	rs = append(rs,
		Num("ping_failures", "ping failures", float64(s.ping.errs.Load())),
		Num("fast_rps", "/fast", fastRPS).In(UnitRPS),
		Millis("fast_p99_ms", "/fast p99", fw.P99, fw.Count > 0),
		Num("slow_rps", "/slow", slowRPS).In(UnitRPS),
		Millis("slow_p99_ms", "/slow p99", sw.P99, sw.Count > 0),
		s.fast.cpu.readout("fast_cpu_ms", "CPU/fast"),
		s.slow.cpu.readout("slow_cpu_ms", "CPU/slow"),
		Num("http_errors", "HTTP errors", float64(s.fast.errs.Load()+s.slow.errs.Load())),
	)
	rs = append(rs, answer(s.fast.done.Load()+s.slow.done.Load() > 0, s.wrong.Load() == 0))
	for _, x := range []struct {
		k string
		e *endpoint
	}{{"ping", s.ping}, {"fast", s.fast}, {"slow", s.slow}} {
		rps, w := windowRate(x.e.served)
		rs = append(rs, Num("served_"+x.k+"_rps", "served /"+x.k, rps).In(UnitRPS),
			Millis("served_"+x.k+"_p99_ms", "served /"+x.k+" p99", w.P99, w.Count > 0))
	}
	rs = append(rs, s.loopReadouts()...)
	rs = append(rs, Str("listen_addr", "listening on", s.srv.Addr()))
	load := fmt.Sprintf("%d closed-loop %s per endpoint, /ping every %v", n, plural(n, "client", "clients"), pingEvery)
	if l := s.nLoops.Load(); l > 1 {
		load = fmt.Sprintf("%d Loops, one heap; ", l) + load
	}
	// the address first, where a narrow screen does not cut it off
	return Status{Load: "on " + s.srv.Addr() + ": " + load, Readouts: rs}
}

func (s *server) SetLoad(delta int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setClients(min(max(s.clients+clampSteps(delta, maxClients), 1), maxClients))
}

func (s *server) Reset() {
	for _, e := range []*endpoint{s.fast, s.slow, s.ping} {
		e.lat.Reset()
		e.served.Reset()
		e.errs.Store(0)
	}
	s.wrong.Store(0)
	s.resetLoops()
}
