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

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/pace"
	"github.com/offtop/offtop/internal/workload"
	"github.com/offtop/offtop/pool"
)

// The io scenario's workload. Seed 004 (docs/seeds.md) sends each task's request to
// httpbin.org and finds worker threads buy nothing for I/O there, because
// Node's one thread already overlaps its requests. offtop's task makes a
// blocking call instead (a Go goroutine waits for its response, as a
// synchronous call would block a Node thread), so concurrency is the number
// of workers and throughput tops out at workers / delay: 20/s a worker at
// the default 50 ms.
const (
	// DefaultIODelay is how long the loopback endpoint waits before it
	// answers: the stand-in for httpbin's latency in the seed, short enough
	// that one worker saturates at 20 calls/s.
	DefaultIODelay = 50 * time.Millisecond
	// ioFibN is the CPU work a task may do before its call: the seed's
	// "CPU and I/O" case computes fibonacci(20) first (~20 us in Go).
	ioFibN    = 20
	ioFibWant = 6765
	// ioStartRate indexes ioRates: 40 arrivals/s at start.
	ioStartRate = 2
	// ioRequestTimeout bounds one call once the task has started it; time
	// in the queue does not count.
	ioRequestTimeout = 5 * time.Second
	// ioMaxIdleConns keeps a connection per worker of the largest pool
	// (pool.MaxSize) alive between calls.
	ioMaxIdleConns = pool.MaxSize
	// ioIdleConnTimeout closes a connection idle that long, so that those of
	// a larger pool (3 goroutines each) go once the pool is made smaller.
	ioIdleConnTimeout = 2 * time.Second
)

// ioRates are the open-loop arrival rates, per second, [ and ] step through.
var ioRates = [...]int{10, 20, 40, 80, 160, 320}

// ioResult is how one task's call went; written by the task and read by
// its done callback, which runs on the same goroutine after it.
type ioResult struct {
	cancelled bool // the scenario stopped before or during the call
	failed    bool // transport error, timeout or non-200 status
	wrong     bool // a body (or fib) that is not the expected answer
}

// ioScenario submits tasks at a fixed rate, open-loop: arrival k is due at
// t0 + k/rate whether or not earlier tasks are done (no coordinated
// omission), and queues in the pool. Each task calls an in-process HTTP
// server on 127.0.0.1 that answers after a fixed delay, echoing the number
// it was sent.
type ioScenario struct {
	// base's context is cancelled by Stop: the generator ends, queued
	// tasks return at once, calls in progress are abandoned.
	base
	rateIdx atomic.Int32
	cpuOn   atomic.Bool
	kick    chan struct{} // 1-buffered: rate or pause changed

	env    Env
	delay  time.Duration
	listen string // address to listen on; "" is 127.0.0.1:0
	srv    *loopback
	client *http.Client

	tasks sync.WaitGroup // tasks submitted and not yet done

	seq      atomic.Int64 // numbers sent; each task sends the next
	inFlight atomic.Int64 // submitted, done callback not yet run
	lat      *hist.Recorder
	cpu      atomic.Pointer[cpuMeter]
	errs     atomic.Int64 // failed calls and refused submits
	wrong    atomic.Int64 // wrong answers
	answered atomic.Int64 // calls with a correct answer
}

func newIO(c Config) *ioScenario {
	s := &ioScenario{delay: DefaultIODelay, kick: make(chan struct{}, 1), listen: c.Listen}
	s.rateIdx.Store(ioStartRate)
	return s
}

// ioWorkers is io's pool size whatever the cores: I/O-bound tasks mostly
// wait, so a pool larger than the cores helps; 4 workers serve
// 80 calls/s at 50ms, twice the default arrival rate, so the queue starts
// empty.
const ioWorkers = 4

// ioKnobs: c switches fib(20) before each call on or off.
var ioKnobs = workload.IOKnobs

func (s *ioScenario) Name() string { return "io" }
func (s *ioScenario) Look() string {
	return "throughput = workers / delay, CPU low: here, and only here, workers > cores pays"
}

func (s *ioScenario) Start(env Env) error {
	s.env = env
	s.lat = hist.NewRecorder(env.Window, s.now)
	s.cpu.Store(&cpuMeter{})
	mux := http.NewServeMux()
	mux.HandleFunc("/call", s.handleCall)
	srv, err := serveLoopback("io", s.listen, &http.Server{Handler: mux}, func(error) { s.errs.Add(1) })
	if err != nil {
		return err
	}
	s.srv = srv
	s.client = &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: ioMaxIdleConns,
		MaxIdleConns:        ioMaxIdleConns,
		IdleConnTimeout:     ioIdleConnTimeout,
		DisableCompression:  true,
	}}
	s.begin()
	s.goSafe(s.generate)
	return nil
}

// handleCall is the remote service: it waits the delay, then echoes n. It
// runs on net/http's goroutines, never on the Loop or the pool: it stands
// for a server in another process.
func (s *ioScenario) handleCall(w http.ResponseWriter, r *http.Request) {
	t := time.NewTimer(s.delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	io.WriteString(w, r.URL.Query().Get("n"))
}

// arrivalsDue is how many arrivals are due elapsed after t0 at rate per
// second: arrival k (k = 1, 2, ...) is due at ioDueAt(k, rate).
func arrivalsDue(elapsed time.Duration, rate int) int64 {
	return pace.Rate{PerSecond: rate}.Count(elapsed)
}

// ioDueAt is when arrival k is due after t0: k/rate seconds, rounded up to
// the ns so that arrivalsDue(ioDueAt(k, rate), rate) >= k.
func ioDueAt(k int64, rate int) time.Duration { return pace.Rate{PerSecond: rate}.Due(k) }

// generate submits arrivals at the current rate until Stop. Pacing is a
// pure function of the time since t0 (arrivalsDue): arrivals due while the
// generator was not scheduled are submitted at once, none is skipped. A
// rate change, or a resume after Pause, starts a new t0.
func (s *ioScenario) generate() {
	clk := s.clock()
	var (
		t0   time.Time
		sent int64
		rate int
	)
	for {
		if s.Paused() {
			t0 = time.Time{}
			if !s.waitRunning() {
				return
			}
		}
		if r := ioRates[s.rateIdx.Load()]; r != rate || t0.IsZero() {
			rate, t0, sent = r, clk.Now(), 0
		}
		for due := arrivalsDue(clock.Since(clk, t0), rate); sent < due; sent++ {
			s.arrive()
		}
		due := clk.After(t0.Add(ioDueAt(sent+1, rate)).Sub(clk.Now()))
		select {
		case <-s.ctx.Done():
			return
		case <-s.kick:
		case <-s.pausedCh():
		case <-due:
		}
	}
}

// arrive submits one task. Its latency runs from now (its arrival) to its
// done callback: queue wait, fib, call and all.
func (s *ioScenario) arrive() {
	n := s.seq.Add(1)
	fibOn := s.cpuOn.Load()
	at := time.Now()
	s.tasks.Add(1)
	s.inFlight.Add(1)
	var res ioResult
	err := s.env.Submit(func() { res = s.call(n, fibOn) }, func(err error) {
		defer s.tasks.Done()
		defer s.inFlight.Add(-1)
		switch {
		case s.ctx.Err() != nil || res.cancelled:
			// stopping: neither a result nor a failure
		case err != nil || res.failed:
			s.errs.Add(1)
		case res.wrong:
			s.wrong.Add(1)
		default:
			s.answered.Add(1)
			s.lat.Record(int64(time.Since(at)))
			s.env.ObserveHeadline(time.Since(at))
		}
	})
	if err != nil {
		s.inFlight.Add(-1)
		s.errs.Add(1)
		s.tasks.Done()
	}
}

// call is one task: fib(20) when fibOn, then a GET of /call?n=N, blocking
// until the answer; the body must be N. It returns at once when the
// scenario is stopping. Its thread CPU time goes into the CPU meter: fib,
// building the request and reading the answer; not net/http's transport
// goroutines nor the server, which the process CPU shows.
func (s *ioScenario) call(n int64, fibOn bool) (r ioResult) {
	if s.ctx.Err() != nil {
		return ioResult{cancelled: true}
	}
	want := strconv.FormatInt(n, 10)
	s.cpu.Load().run(func() {
		if fibOn && fib(ioFibN) != ioFibWant {
			r.wrong = true
		}
		ctx, cancel := context.WithTimeout(s.ctx, ioRequestTimeout)
		defer cancel()
		body, err := s.get(ctx, "/call?n="+want)
		switch {
		case s.ctx.Err() != nil:
			r.cancelled = true
		case err != nil:
			r.failed = true
		case body != want:
			r.wrong = true
		}
	})
	return r
}

// get fetches path and returns the body of a 200 answer.
func (s *ioScenario) get(ctx context.Context, path string) (string, error) {
	return httpGet(ctx, s.client, s.srv.URL+path)
}

// Stop ends the arrivals, waits for every task submitted (queued ones
// return at once, calls in progress are cancelled), then closes the server
// and the client's idle connections. Safe twice.
func (s *ioScenario) Stop() {
	s.halt(func() {
		s.tasks.Wait()
		s.srv.Close()
		s.client.CloseIdleConnections()
	})
}

func (s *ioScenario) Status() Status {
	rate := ioRates[s.rateIdx.Load()]
	tput, w := windowRate(s.lat)
	workers := s.env.Workers()
	capacity := float64(max(workers, 1)) * float64(time.Second) / float64(s.delay)
	rs := []Readout{
		Num("throughput_per_s", "throughput", tput).In(UnitPerSec),
		Num("capacity_per_s", "workers/delay", capacity).In(UnitPerSec),
		Num("rate_per_s", "arrivals", float64(rate)).In(UnitPerSec),
		Num("in_flight", "in flight", float64(s.inFlight.Load())),
	}
	rs = append(rs, Percentiles("request", "request", w)...)
	rs = append(rs,
		s.cpu.Load().readout("cpu_per_task_ms", "CPU/task"),
		Num("http_errors", "HTTP errors", float64(s.errs.Load())),
	)
	rs = append(rs, answer(s.answered.Load()+s.wrong.Load() > 0, s.wrong.Load() == 0))
	fibText := "off"
	if s.cpuOn.Load() {
		fibText = "on"
	}
	addr := s.srv.Addr()
	rs = append(rs, Str("listen_addr", "listening on", addr))
	return Status{
		Load:     fmt.Sprintf("on %s: %d calls/s open-loop, %v delay each, fib(%d) %s", addr, rate, s.delay, ioFibN, fibText),
		Readouts: rs,
	}
}

// SetLoad steps the arrival rate through 10, 20, 40, 80, 160, 320 per s.
func (s *ioScenario) SetLoad(delta int) {
	i := int(s.rateIdx.Load()) + clampSteps(delta, len(ioRates))
	s.rateIdx.Store(int32(min(max(i, 0), len(ioRates)-1)))
	s.poke()
}

// Turn applies c: fib(20) before each call, on or off, for tasks arriving
// from now on.
func (s *ioScenario) Turn(key string) {
	turn(ioKnobs, key, func(string, int) {
		for {
			if on := s.cpuOn.Load(); s.cpuOn.CompareAndSwap(on, !on) {
				return
			}
		}
	})
}

// poke wakes the generator to re-read the rate.
func (s *ioScenario) poke() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Reset clears the latency window, the counts and the CPU meter. Tasks in
// flight stay counted.
func (s *ioScenario) Reset() {
	s.lat.Reset()
	s.cpu.Store(&cpuMeter{})
	s.errs.Store(0)
	s.wrong.Store(0)
	s.answered.Store(0)
}
