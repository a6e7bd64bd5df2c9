package sweep

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/session"
)

// liveSearch is the a key on an attached program under --load: the
// search sweep --attach does (Run over an Attached, its load the
// running one), at the sizes and for the hold the agent's own search
// would use (session.SearchSizes, one window each), SearchMinPasses
// passes interleaved, picking by the featured target's client p99. Its
// state shows as the Snapshot's Search; the pool goes to the pick, or
// back to its size before when the search has none or is stopped (any
// key). Each hold begins with a Reset of the agent's figures; rows keeps
// each size's row as its last hold left it, and withRows puts those the
// agent no longer has back in a Snapshot, so the sizes table keeps every
// size the search measured, as the agent's own search does.
type liveSearch struct {
	run     sync.Mutex // held by start and stop: one search at a time
	mu      sync.Mutex
	st      session.Search    // Scenario "": none has run
	rows    []session.SizeRow // the search's measured rows, none current
	pid     int               // the program searched (its agent's pid; 0 unknown)
	holdEnd time.Time         // the current hold's end, for Left
	cancel  context.CancelFunc
	done    chan struct{} // closed when the search's goroutine ends
}

// state is the search's state for a Snapshot; ok false when none has run.
func (l *liveSearch) state() (session.Search, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.st
	if st.Running && !l.holdEnd.IsZero() {
		st.Left = session.Seconds(max(time.Until(l.holdEnd), 0))
	}
	st.Sizes, st.PassPicks = slices.Clone(st.Sizes), slices.Clone(st.PassPicks)
	st.Spread = slices.Clone(st.Spread)
	for i := range st.Spread {
		st.Spread[i] = slices.Clone(st.Spread[i])
	}
	return st, st.Scenario != ""
}

// running reports whether a search is under way.
func (l *liveSearch) running() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cancel != nil
}

// stop cancels the search under way, if any, and waits for it to end
// (its pool set back).
func (l *liveSearch) stop() {
	l.run.Lock()
	defer l.run.Unlock()
	l.stopRun()
}

// stopRun is stop with l.run held.
func (l *liveSearch) stopRun() {
	l.mu.Lock()
	cancel, done := l.cancel, l.done
	l.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// start begins a search of s's program (one under way is stopped first).
func (l *liveSearch) start(s *loadSource) {
	l.run.Lock()
	defer l.run.Unlock()
	l.stopRun()
	snap := s.Source.Snapshot()
	sizes := session.SearchSizes(float64(snap.UsableCPUs))
	hold := max(time.Duration(snap.Window), time.Second)
	target := s.target(s.load.Figures(snap.Endpoints))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	l.mu.Lock()
	l.st = session.Search{Running: true, Scenario: snap.Scenario, Sizes: sizes, Headline: session.ClientHeadline(target), MaxPasses: session.SearchMinPasses,
		Hold: session.Seconds(hold), OthersMaxCPUs: -1, Spread: make([][]float64, len(sizes))}
	l.holdEnd, l.cancel, l.done = time.Time{}, cancel, done
	l.rows, l.pid = nil, snap.PID
	l.mu.Unlock()
	s.load.ResetSizes() // the rows are measured afresh, their client figures too
	holds := 0
	att := &Attached{Addr: snap.Remote, Src: s.Source, Load: s.load, Target: target,
		OnHold: func(n int, d time.Duration) {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.st.Step, l.st.Pass = max(slices.Index(sizes, n), 0), holds/len(sizes)
			l.holdEnd = time.Now().Add(d)
			holds++
		},
		OnRow: l.keepRow}
	c := Config{Attach: att, Workers: sizes, Duration: hold, Repeat: session.SearchMinPasses}
	crash.Go(func() {
		defer close(done)
		res, err := Run(ctx, c, io.Discard)
		l.finish(s, res, err, ctx.Err() != nil)
		l.mu.Lock()
		l.cancel = nil
		l.mu.Unlock()
	})
}

// finish files the search's result and sets the pool to its pick (the
// sweep set it back to its size before already).
func (l *liveSearch) finish(s *loadSource, res Result, err error, canceled bool) {
	l.mu.Lock()
	st := &l.st
	st.Running, st.Left, st.Step = false, 0, len(st.Sizes)
	switch {
	case canceled:
		st.Canceled = true
	case err != nil:
		st.Err = err.Error()
	default:
		st.Fit = res.Fit
		busy := 0
		for _, r := range res.Rows {
			if i := slices.Index(st.Sizes, r.Workers); i >= 0 {
				if sp, ok := r.Spread["headline_p99_ms"]; ok {
					st.Spread[i] = []float64{sp.Min, sp.Max}
				}
			}
			if r.Size.MachineBusy {
				busy++
			}
		}
		if busy > 0 {
			st.BusyHolds = busy
			st.Uncertain = fmt.Sprintf("machine busy: others took over a quarter of the CPUs at %d of %d sizes", busy, len(res.Rows))
		}
	}
	pick := -1
	if st.Fit != nil && st.Uncertain == "" {
		pick = st.Fit.Recommended
	}
	l.mu.Unlock()
	if pick >= 0 {
		if err := <-s.Source.Post(session.Action{Kind: session.SetWorkers, N: pick}); err != nil {
			l.mu.Lock()
			l.st.Err = err.Error()
			l.mu.Unlock()
		}
	}
}

// keepRow files r, the agent's row of a measured hold, in place of the
// row of its size an earlier hold left, and the hold's headline p99
// (ms; nil: none) in the search's Spread, so each pass shows as it ends.
func (l *liveSearch) keepRow(r session.SizeRow, headlineP99MS *float64) {
	r.Current = false
	l.mu.Lock()
	defer l.mu.Unlock()
	if i := slices.Index(l.st.Sizes, r.Workers); i >= 0 && i < len(l.st.Spread) {
		v := math.NaN()
		if headlineP99MS != nil {
			v = *headlineP99MS
		}
		l.st.Spread[i] = append(l.st.Spread[i], v)
	}
	i := slices.IndexFunc(l.rows, func(k session.SizeRow) bool { return sameSize(k, r) })
	if i < 0 {
		l.rows = append(l.rows, r)
		return
	}
	l.rows[i] = r
}

// forget drops the search's rows (a Reset: the agent's are gone too).
func (l *liveSearch) forget() {
	l.mu.Lock()
	l.rows = nil
	l.mu.Unlock()
}

// program drops the search's rows and state when pid is another program
// than the one searched (a process replaced on the address): they are the
// earlier one's, which the Snapshot keeps apart. A search under way goes
// on (its next hold fails or reads the new program).
func (l *liveSearch) program(pid int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if pid == 0 || l.pid == 0 || pid == l.pid {
		return
	}
	l.rows, l.pid = nil, pid
	if l.cancel == nil {
		l.st = session.Search{}
	}
}

// withRows is rows with the search's rows added, in the agent's order:
// scenarios in order of first use, sizes by workers then GOMAXPROCS. Of
// two rows of one size the longer held wins, the agent's on a tie (it is
// the newer): a size the search measured and the pool passed through
// again after it (set back to its size before) keeps the search's
// figures until the agent has held it as long. The winner is Current
// when the agent's row is (the size in force now).
func (l *liveSearch) withRows(rows session.SizeRows) session.SizeRows {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.rows) == 0 {
		return rows
	}
	out := slices.Clone(rows)
	for _, k := range l.rows {
		i := slices.IndexFunc(out, func(r session.SizeRow) bool { return sameSize(r, k) })
		switch {
		case i < 0:
			out = append(out, k)
		case k.Held > out[i].Held:
			k.Current = out[i].Current
			out[i] = k
		}
	}
	var scens []string
	for _, r := range out {
		if !slices.Contains(scens, r.Scenario) {
			scens = append(scens, r.Scenario)
		}
	}
	session.SortRows(out, scens)
	return out
}

// sameSize reports whether a and b are rows of one size: scenario,
// workers, GOMAXPROCS and priority alike.
func sameSize(a, b session.SizeRow) bool {
	return a.Scenario == b.Scenario && a.Workers == b.Workers && a.GOMAXPROCS == b.GOMAXPROCS && a.Priority == b.Priority
}
