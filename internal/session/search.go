package session

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	guard "github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/sizing"
	"github.com/offtop/offtop/internal/sysinfo"
)

// ClientHeadline names the figure sizes are ranked by under a load
// (attach --load, sweep --attach): target's client p99 ("/ping client").
// A size row's headline and a search's Headline carry it
// (workload.HeadlineNamed).
func ClientHeadline(target string) string { return target + " client" }

// Search is the state of the size search (the a key, Action AutoSize): it
// empties the scenario's size rows (a Reset: rows of an earlier load or
// moment would mix in), steps the pool through Sizes in passes, sizes
// interleaved (1, 2, 4, 1, 2, 4, ...: a drift of the machine lands on
// every size alike), holds each for Hold (one window), filling a row each,
// until two passes in a row pick the same size by the scenario's rule (at least
// SearchMinPasses, at most SearchMaxPasses: the time bound), then fits the
// rows (sizing.Recommend) and sets the pool to the size picked. It gives
// no answer (Uncertain) when the machine was busy during a hold
// (sysinfo.Busy) or its passes never agreed; the pool then goes back to
// the size before the search. Any other action cancels it; a key's Reset
// (r) also forgets it, since its rows are gone. The zero value is "never
// run".
type Search struct {
	// Running is true from AutoSize until the fit, a cancel or an error.
	Running bool `json:"running"`
	// Scenario is the scenario searched; Sizes the sizes stepped through,
	// in order; Step the index of the size held now (len(Sizes) once
	// fitting); Hold how long each is held, Left what remains of the
	// current hold.
	Scenario string `json:"scenario"`
	Sizes    []int  `json:"sizes"`
	Step     int    `json:"step"`
	// Headline names the figure the search ranks sizes by when it is not
	// the scenario's headline (workload.HeadlineNamed: "/ping client" for
	// an attached program searched under a load, by its client p99); ""
	// for the scenario's own.
	Headline string `json:"headline,omitempty"`
	// Pass is the pass under way (0 first), MaxPasses the time bound in
	// passes.
	Pass      int `json:"pass"`
	MaxPasses int `json:"max_passes"`
	// Spread is, per size of Sizes in order, the headline p99 in ms of
	// each pass that held it (over the hold's window; NaN, null in JSON,
	// with no observation), and PassPicks the size each finished pass
	// picked: the scenario's rule (sizing.Recommend) over the rows up to
	// its end (-1: none).
	Spread    Spreads `json:"spread_headline_p99_ms"`
	PassPicks []int   `json:"pass_picks"`
	// OthersMaxCPUs is the most CPU the rest of the machine took during a
	// hold (sysinfo.OthersCPUs; -1 unknown), BusyHolds how many holds it
	// was busy in.
	OthersMaxCPUs OptCPUs `json:"others_max_cpus"`
	BusyHolds     int     `json:"busy_holds"`
	Hold          Seconds `json:"hold_s"`
	Left          Seconds `json:"left_s"`
	// Canceled says a key (or Close) stopped it before the fit; Err is an
	// action that failed ("" when none).
	Canceled bool   `json:"canceled"`
	Err      string `json:"error,omitempty"`
	// Fit is the result once done: the model and the size picked
	// (Fit.Recommended, -1 when the rule could not pick).
	Fit *sizing.Fit `json:"fit"`
	// Uncertain, once done, says why the search gives no answer ("" when
	// it gives one): the machine was busy while it measured, or its passes
	// disagreed up to its time bound. The pool is then set back to the
	// size before the search.
	Uncertain string `json:"uncertain,omitempty"`
}

// Done reports a finished search with a result.
func (s Search) Done() bool { return !s.Running && s.Fit != nil }

// The search's passes: at least two (a pick seen twice), at most three
// (sweep's default repeat, and the time bound: 3 x sizes x window).
const (
	SearchMinPasses = 2
	SearchMaxPasses = 3
)

// maxSearchSizes bounds how many sizes a search holds (each for a window).
const maxSearchSizes = 12

// SearchSizes are the sizes a search steps through on cpus usable CPUs:
// 1..2 x cpus rounded up, at least 1..4 (the fit needs four sizes); past
// maxSearchSizes sizes, 1, 2, 3, 4 and then about 1.5 times the size
// before, ending at 2 x cpus.
func SearchSizes(cpus float64) []int {
	n := min(max(int(math.Ceil(2*cpus)), 4), MaxWorkers)
	var out []int
	for w := 1; w <= n; {
		out = append(out, w)
		if n <= maxSearchSizes || w < 4 {
			w++
		} else {
			w = w * 3 / 2
		}
	}
	if out[len(out)-1] != n {
		out = append(out, n)
	}
	return out
}

// searcher runs one search at a time. mu guards st and cancel; lock
// order: Session.mu before searcher.mu (overlay reads st under both).
type searcher struct {
	mu     sync.Mutex
	st     Search
	cancel chan struct{} // closed to stop the search in progress; nil when none
	wg     sync.WaitGroup
}

func (z *searcher) state() Search {
	z.mu.Lock()
	defer z.mu.Unlock()
	st := z.st
	st.Sizes = slices.Clone(st.Sizes)
	st.PassPicks = slices.Clone(st.PassPicks)
	spread := make([][]float64, len(st.Spread))
	for i, v := range st.Spread {
		spread[i] = slices.Clone(v)
	}
	if st.Spread != nil {
		st.Spread = spread
	}
	return st
}

func (z *searcher) update(f func(st *Search)) {
	z.mu.Lock()
	defer z.mu.Unlock()
	f(&z.st)
}

// active reports whether a search is in progress (not stopped).
func (z *searcher) active() bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.cancel != nil
}

// stop ends the search in progress, if any; canceled marks it so (a key,
// Close) rather than finished. It does not wait for its goroutine.
func (z *searcher) stop(canceled bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.cancel == nil {
		return
	}
	close(z.cancel)
	z.cancel = nil
	if canceled && z.st.Running {
		z.st.Running, z.st.Canceled, z.st.Left = false, true, 0
	}
}

// forget clears the search's state, as if none had run: r clears the
// rows the search measured, so its result goes with them. The search's
// goroutine, if any, must have ended (stop, then wg.Wait).
func (z *searcher) forget() {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.st = Search{}
}

// startSearch begins a search of the scenario now in force (AutoSize); a
// search in progress is stopped first. Only the control goroutine calls it.
func (s *Session) startSearch() {
	s.search.stop(true)
	s.search.wg.Wait()
	snap := s.Snapshot()
	cancel := make(chan struct{})
	st := Search{Running: true, Scenario: snap.Scenario, Sizes: SearchSizes(snap.UsableCPUs), Hold: Seconds(s.cfg.Window),
		MaxPasses: SearchMaxPasses, OthersMaxCPUs: -1}
	st.Spread = make([][]float64, len(st.Sizes))
	s.search.mu.Lock()
	s.search.st, s.search.cancel = st, cancel
	s.search.mu.Unlock()
	s.search.wg.Add(1)
	go s.runSearch(st, cancel)
}

// runSearch is the search's goroutine: a sequence of Actions posted like
// any key's (marked as the search's own, so they do not cancel it), the
// samples read between them, the fit at the end.
func (s *Session) runSearch(st Search, cancel <-chan struct{}) {
	defer guard.Recover()
	defer s.search.wg.Done()
	post := func(a Action) bool {
		a.search = true
		var err error
		select {
		case err = <-s.Post(a):
		case <-cancel:
			return false
		}
		if err != nil {
			s.search.update(func(x *Search) { x.Running, x.Err = false, err.Error() })
			s.search.stop(false)
			return false
		}
		return true
	}
	canceled := func() { s.search.stop(true) }
	// A clean table: the scenario's rows of earlier sizes are another
	// load's, another moment's.
	if !post(Action{Kind: Reset}) {
		canceled()
		return
	}
	before := s.Snapshot().Workers
	meters := make([][]sizing.Meter, len(st.Sizes)) // per size, per pass
	stable := false
	for pass := 0; pass < SearchMaxPasses && !stable; pass++ {
		figs := make([]float64, len(st.Sizes))
		for i, n := range st.Sizes {
			if !post(Action{Kind: SetWorkers, N: n}) {
				canceled()
				return
			}
			s.search.update(func(x *Search) { x.Pass, x.Step, x.Left = pass, i, st.Hold })
			m0 := s.machine.ReadMachine()
			var m sizing.Meter
			if !s.holdSize(st, cancel, &m) {
				canceled()
				return
			}
			meters[i] = append(meters[i], m)
			others, known := sysinfo.OthersCPUs(m0, s.machine.ReadMachine())
			snap := s.Snapshot()
			figs[i] = math.NaN()
			if snap.Headline.Count > 0 {
				figs[i] = float64(snap.Headline.P99) / float64(time.Millisecond)
			}
			s.search.update(func(x *Search) {
				x.Spread[i] = append(x.Spread[i], figs[i])
				if known {
					x.OthersMaxCPUs = max(x.OthersMaxCPUs, OptCPUs(others))
					if sysinfo.Busy(others, m0.CPUs) {
						x.BusyHolds++
					}
				}
			})
		}
		pick := sizing.Recommend(s.target.sizing(st.Scenario), searchObs(s.Snapshot(), st, meters)).Recommended
		s.search.update(func(x *Search) {
			x.PassPicks = append(x.PassPicks, pick)
			n := len(x.PassPicks)
			stable = n >= SearchMinPasses && pick >= 0 && x.PassPicks[n-2] == pick
		})
	}
	s.search.update(func(x *Search) { x.Step, x.Left = len(st.Sizes), 0 })
	f := sizing.Recommend(s.target.sizing(st.Scenario), searchObs(s.Snapshot(), st, meters))
	q := s.search.state()
	uncertain := ""
	switch {
	case q.BusyHolds > 0:
		uncertain = fmt.Sprintf("machine busy: others up to %.1f of %d CPUs in %d of %d holds",
			q.OthersMaxCPUs, s.machine.ReadMachine().CPUs, q.BusyHolds, len(q.PassPicks)*len(st.Sizes))
	case !stable:
		uncertain = "its passes picked " + pickList(q.PassPicks)
	}
	s.search.update(func(x *Search) { x.Fit, x.Uncertain = &f, uncertain })
	to := f.Recommended
	if uncertain != "" {
		to = before
	}
	if to >= 0 && !post(Action{Kind: SetWorkers, N: to}) {
		canceled()
		return
	}
	s.search.update(func(x *Search) { x.Running = false })
	s.search.stop(false)
}

// holdSize holds the size in force for st.Hold on the session's clock,
// metering its samples into m and counting down Left; false when
// canceled.
func (s *Session) holdSize(st Search, cancel <-chan struct{}, m *sizing.Meter) bool {
	clk := s.cfg.Clock
	end := clk.Now().Add(time.Duration(st.Hold))
	var seen Seconds
	for {
		select {
		case <-cancel:
			return false
		case now := <-clk.After(s.cfg.Interval):
			snap := s.Snapshot()
			if snap.Elapsed != seen {
				seen = snap.Elapsed
				m.Add(time.Duration(snap.Elapsed), snap.Submitted, snap.WorkerBusy)
			}
			left := max(end.Sub(now), 0)
			s.search.update(func(x *Search) { x.Left = Seconds(left) })
			if left <= 0 {
				return true
			}
		}
	}
}

// pickList is the passes' picks in words: "1, 2, 1 workers".
func pickList(picks []int) string {
	w := make([]string, len(picks))
	for i, p := range picks {
		w[i] = "none"
		if p >= 0 {
			w[i] = strconv.Itoa(p)
		}
	}
	return strings.Join(w, ", ") + " workers"
}

// searchObs are the search's sizes as sizing reads them: each size's row
// of the scenario (at the GOMAXPROCS in force, every pass together) and
// the median over its passes of its meters' arrival rate and service
// time.
func searchObs(snap Snapshot, st Search, meters [][]sizing.Meter) []sizing.Obs {
	var obs []sizing.Obs
	for _, r := range snap.Sizes {
		i := slices.Index(st.Sizes, r.Workers)
		if r.Scenario != st.Scenario || i < 0 || r.GOMAXPROCS != snap.GOMAXPROCS {
			continue
		}
		j := r.JSON()
		var arr, svc []float64
		for _, m := range meters[i] {
			arr = append(arr, m.ArrivalPerS())
			if v := m.ServiceMS(r.ThroughputPerS()); !math.IsNaN(v) {
				svc = append(svc, v)
			}
		}
		obs = append(obs, sizing.Obs{Workers: r.Workers, ThroughputPerS: r.ThroughputPerS(),
			HeadlineP99MS: optMS(j.HeadlineP99MS), LoopP99MS: optMS(j.ProbeP99MS),
			ArrivalPerS: sizing.Median(arr), ServiceMS: sizing.Median(svc)})
	}
	return obs
}

func optMS(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}
