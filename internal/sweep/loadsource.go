package sweep

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/load"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sizing"
)

// NewLoadSource is c with l's figures in every Snapshot (LoadClient; none
// when l is nil) and route as the featured one (Link.Route); the a key
// under l runs a live search here. A reader far behind on Samples loses
// the oldest, as c's do. Its Close stops the search (the pool set back),
// l, then c.
func NewLoadSource(c session.Source, l *load.Load, route string) session.Source {
	s := &loadSource{Source: c, load: l, route: route, out: make(chan session.Snapshot, cap(c.Samples())), workers: -1}
	crash.Go(func() {
		defer close(s.out)
		for snap := range c.Samples() {
			session.PushNewest(s.out, s.fill(snap)) // never blocks: Close always ends this
		}
	})
	return s
}

// loadSource is a Source with a load's figures added to each Snapshot
// (none when load is nil) and the featured route.
type loadSource struct {
	session.Source
	load  *load.Load
	route string
	out   chan session.Snapshot

	mu      sync.Mutex // guards workers and pid
	workers int        // the pool size the load files under; -1 before one
	pid     int        // the program's process; 0 before one is seen

	search liveSearch // the a key under the load
}

// Post is the Source's, but for the a key under a load: the search
// runs here (liveSearch), and any key while it runs stops it (the pool
// set back first), as the agent's own search does. r (Reset) also
// forgets the load's figures per size (Load.ResetSizes), as the rows go.
func (s *loadSource) Post(a session.Action) <-chan error {
	if s.load == nil {
		return s.Source.Post(a)
	}
	res := make(chan error, 1)
	switch {
	case a.Kind == session.AutoSize:
		crash.Go(func() { s.search.start(s); res <- nil })
	case s.search.running():
		crash.Go(func() {
			s.search.stop()
			if a.Kind == session.Reset {
				s.search.forget()
				s.load.ResetSizes()
			}
			if a.Kind == session.CancelAutoSize {
				res <- nil
				return
			}
			res <- <-s.Source.Post(a)
		})
	default:
		if a.Kind == session.Reset {
			s.search.forget()
			s.load.ResetSizes()
		}
		return s.Source.Post(a)
	}
	return res
}

func (s *loadSource) fill(snap session.Snapshot) session.Snapshot {
	snap.Route = s.route
	if s.load == nil {
		return snap
	}
	if snap.Disconnected.IsZero() {
		s.search.program(snap.PID)
		s.mu.Lock()
		if snap.PID != 0 && s.pid != 0 && snap.PID != s.pid {
			s.load.ResetSizes() // another process: its rows are its own, its client figures too
		}
		if snap.PID != 0 {
			s.pid = snap.PID
		}
		if snap.Workers != s.workers {
			s.workers = snap.Workers
			s.load.SetSize(snap.Workers) // from when this client saw it: up to an interval late
		}
		s.mu.Unlock()
	}
	if st, ok := s.search.state(); ok {
		snap.Search = st
		snap.Sizes = s.search.withRows(snap.Sizes)
	}
	snap.LoadClient = s.load.Figures(snap.Endpoints)
	for i := range snap.LoadClient.Targets {
		t := &snap.LoadClient.Targets[i]
		t.BySize = s.load.BySize(t.Target)
	}
	snap.Sizes = s.clientRows(snap)
	return snap
}

// target is the load target sizes are ranked by: the one --route names
// (by its path, or by the route the middleware records it under, as lc,
// the load's figures, matched it), else the load's first.
func (s *loadSource) target(lc *session.LoadClient) string {
	target := s.load.Spec()[0].Path
	for _, t := range s.load.Spec() {
		if t.Path == s.route {
			target = t.Path
		}
	}
	for _, t := range lc.Targets {
		if s.route != "" && t.Route == s.route {
			target = t.Target
		}
	}
	return target
}

// clientRows is snap's size rows with the program's rows' headline the
// ranking target's client latency at each size (LoadTarget.BySize: the
// requests due while that many workers were in force, from their due
// times; none at a size no request was due in), so the rows' pick, the
// search's and the sweep's rank by one figure. A size snap.Search has
// held reads, as its p99, the median of its passes' p99s (the figure the
// search ranks by, as sweep's table does). Rows of a GOMAXPROCS or
// priority of their own share their workers' figure. snap's rows are not
// modified.
func (s *loadSource) clientRows(snap session.Snapshot) session.SizeRows {
	target := s.target(snap.LoadClient)
	var by map[int]hist.Summary
	for _, t := range snap.LoadClient.Targets {
		if t.Target == target {
			by = t.BySize
		}
	}
	rows := slices.Clone(snap.Sizes)
	for i := range rows {
		if rows[i].Scenario != snap.Scenario {
			continue
		}
		rows[i].HeadlineName = session.ClientHeadline(target)
		rows[i].Headline = by[rows[i].Workers]
		if m, ok := passMedian(snap.Search, rows[i].Workers); ok && rows[i].Headline.Count > 0 {
			rows[i].Headline.P99 = time.Duration(m * float64(time.Millisecond))
		}
	}
	return rows
}

// passMedian is the median of the p99s (ms) the search q read at workers,
// its holds with no answer left out; false when it read none there.
func passMedian(q session.Search, workers int) (float64, bool) {
	i := slices.Index(q.Sizes, workers)
	if i < 0 || i >= len(q.Spread) {
		return 0, false
	}
	var v []float64
	for _, x := range q.Spread[i] {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return 0, false
	}
	return sizing.Median(v), true
}

// Samples is the Source's samples, each with the load's figures.
func (s *loadSource) Samples() <-chan session.Snapshot { return s.out }

// Snapshot is the Source's newest sample with the load's figures.
func (s *loadSource) Snapshot() session.Snapshot { return s.fill(s.Source.Snapshot()) }

// Close stops the search (the pool set back), the load, then the Source.
func (s *loadSource) Close() {
	if s.load != nil {
		s.search.stop()
		s.load.Stop()
	}
	s.Source.Close()
}
