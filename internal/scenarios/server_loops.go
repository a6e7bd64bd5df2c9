package scenarios

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/offtop/offtop/internal/probe"
	"github.com/offtop/offtop/internal/workload"
)

// MaxLoops is the most Loops "server" runs (--loops, l and L).
const MaxLoops = 8

// srvLoop is one of server's Loops: Node's cluster runs one process per
// core, each with its own event loop; offtop runs one goroutine each, in
// one process. Loop 0 is the session's own Loop (env.Do); the others are
// the scenario's (own). Each has a lateness probe: Loop 0's is the
// session's (env.LoopLag), the others' their own.
type srvLoop struct {
	do  func(fn func())
	own *probe.Loop     // nil for Loop 0
	lag *probe.LagProbe // nil when Loop 0 reads the session's probe
	env func() probe.LagStats
}

// stats is the Loop's probe figures.
func (l *srvLoop) stats() probe.LagStats {
	if l.lag == nil {
		return l.env()
	}
	return l.lag.Stats()
}

// connKey carries a connection's accept number in its context.
type connKey struct{}

// connContext numbers each accepted connection; a request on connection k
// is served by Loop k mod the Loops running now, which is round-robin over
// connections as Node's cluster primary hands them out on Linux, and
// follows a change of Loops at the next request.
func (s *server) connContext(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, s.conns.Add(1)-1)
}

// loopFor is the Loop that serves r.
func (s *server) loopFor(r *http.Request) *srvLoop {
	k, _ := r.Context().Value(connKey{}).(int64)
	s.loopsMu.Lock()
	defer s.loopsMu.Unlock()
	return s.loops[int(k%int64(len(s.loops)))]
}

// resolution is the Loops' probe period: the session's.
func (s *server) resolution() time.Duration {
	if s.env.Resolution > 0 {
		return s.env.Resolution
	}
	return 10 * time.Millisecond
}

// setLoops starts or stops Loops so n run, 1..MaxLoops. A Loop stopped
// runs what was already posted to it; a request that picked it just
// before runs on a goroutine of its own (probe.Loop.Post after Close).
func (s *server) setLoops(n int) {
	n = min(max(n, 1), MaxLoops)
	var gone []*srvLoop
	s.loopsMu.Lock()
	s.stoppedLoops = nil
	if len(s.loops) == 0 {
		l0 := &srvLoop{do: s.env.Do, env: s.env.LoopLag}
		if l0.env == nil {
			l0.lag = probe.StartLagProbe(s.env.Post, s.resolution(), s.env.Window)
		}
		s.loops = append(s.loops, l0)
	}
	for len(s.loops) < n {
		l := probe.NewLoop()
		s.loops = append(s.loops, &srvLoop{do: l.Do, own: l, lag: probe.StartLagProbe(l.Post, s.resolution(), s.env.Window)})
	}
	for len(s.loops) > n {
		gone = append(gone, s.loops[len(s.loops)-1])
		s.loops = s.loops[:len(s.loops)-1]
	}
	s.nLoops.Store(int32(n))
	s.loopsMu.Unlock()
	for _, l := range gone {
		l.stop()
	}
}

// stop ends the Loop's probe and, for a Loop of the scenario's own, the
// Loop.
func (l *srvLoop) stop() {
	if l.lag != nil {
		l.lag.Stop()
	}
	if l.own != nil {
		l.own.Close()
	}
}

// stopLoops stops every Loop; Stop calls it once the server is closed.
// The Loops' readouts stay as they were at the stop, so a last Status
// describes the run.
func (s *server) stopLoops() {
	rs := s.loopReadouts()
	s.loopsMu.Lock()
	ls := s.loops
	s.loops, s.stoppedLoops = nil, rs
	s.loopsMu.Unlock()
	for _, l := range ls {
		l.stop()
	}
}

// loopReadouts are the Loops' count, the worst Loop's probe p99 and, with
// more than one, each Loop's.
func (s *server) loopReadouts() []Readout {
	s.loopsMu.Lock()
	ls := append([]*srvLoop(nil), s.loops...)
	stopped := s.stoppedLoops
	s.loopsMu.Unlock()
	if len(ls) == 0 && stopped != nil {
		return append([]Readout(nil), stopped...)
	}
	var worst time.Duration
	var each []Readout
	have := false
	for i, l := range ls {
		st := l.stats().Corrected
		if st.Count > 0 {
			have = true
			worst = max(worst, st.P99)
		}
		if len(ls) > 1 {
			each = append(each, Millis(fmt.Sprintf("loop%d_p99_ms", i), fmt.Sprintf("Loop %d probe p99", i), st.P99, st.Count > 0))
		}
	}
	rs := []Readout{
		Num("loops", "Loops", float64(len(ls))),
		Millis("loop_worst_p99_ms", "worst Loop probe p99", worst, have),
	}
	return append(rs, each...)
}

// resetLoops empties the Loops' own probes (the session resets its own).
func (s *server) resetLoops() {
	s.loopsMu.Lock()
	defer s.loopsMu.Unlock()
	for _, l := range s.loops {
		if l.lag != nil {
			l.lag.Reset()
		}
	}
}

// serverKnobs: l and L, one Loop fewer or more (workload.ServerKnobs).
var serverKnobs = workload.ServerKnobs

// Turn applies l or L.
func (s *server) Turn(key string) {
	turn(serverKnobs, key, func(_ string, step int) { s.setLoops(int(s.nLoops.Load()) + step) })
}

// onOwnLoop reports whether l runs a request's CPU work itself: a Loop of
// the scenario's own while the pool has no workers, as each cluster
// process without worker_threads does. Loop 0's work at workers 0 goes
// through the pool, which runs it inline on Loop 0 and counts it. With a
// goroutine per task every Loop's work goes through the pool.
func (s *server) onOwnLoop(l *srvLoop) bool {
	return l.own != nil && s.env.Workers() == 0 && (s.env.PerTask == nil || !s.env.PerTask())
}
