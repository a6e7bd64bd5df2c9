package session

import (
	"math"
	"slices"
	"sync"
	"time"

	guard "github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/sizing"
)

// Search is the state of the size search (the a key, Action AutoSize): it
// empties the scenario's size rows (a Reset: rows of an earlier load or
// moment would mix in), steps the pool through Sizes, holds each for Hold
// (one window), filling a row each, then fits them (sizing.Recommend) and sets
// the pool to the size picked. Any other action cancels it; a key's
// Reset (r) also forgets it, since its rows are gone. The zero value is
// "never run".
type Search struct {
	// Running is true from AutoSize until the fit, a cancel or an error.
	Running bool `json:"running"`
	// Scenario is the scenario searched; Sizes the sizes stepped through,
	// in order; Step the index of the size held now (len(Sizes) once
	// fitting); Hold how long each is held, Left what remains of the
	// current hold.
	Scenario string  `json:"scenario"`
	Sizes    []int   `json:"sizes"`
	Step     int     `json:"step"`
	Hold     Seconds `json:"hold_s"`
	Left     Seconds `json:"left_s"`
	// Canceled says a key (or Close) stopped it before the fit; Err is an
	// action that failed ("" when none).
	Canceled bool   `json:"canceled"`
	Err      string `json:"error,omitempty"`
	// Fit is the result once done: the model and the size picked
	// (Fit.Recommended, -1 when the rule could not pick).
	Fit *sizing.Fit `json:"fit"`
}

// Done reports a finished search with a result.
func (s Search) Done() bool { return !s.Running && s.Fit != nil }

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
	st := Search{Running: true, Scenario: snap.Scenario, Sizes: SearchSizes(snap.UsableCPUs), Hold: Seconds(s.cfg.Window)}
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
	meters := make([]sizing.Meter, len(st.Sizes))
	for i, n := range st.Sizes {
		if !post(Action{Kind: SetWorkers, N: n}) {
			canceled()
			return
		}
		s.search.update(func(x *Search) { x.Step, x.Left = i, st.Hold })
		clk := s.cfg.Clock
		end := clk.Now().Add(time.Duration(st.Hold))
		var seen Seconds
		for holding := true; holding; {
			select {
			case <-cancel:
				canceled()
				return
			case now := <-clk.After(s.cfg.Interval):
				snap := s.Snapshot()
				if snap.Elapsed != seen {
					seen = snap.Elapsed
					meters[i].Add(time.Duration(snap.Elapsed), snap.Submitted, snap.WorkerBusy)
				}
				left := max(end.Sub(now), 0)
				s.search.update(func(x *Search) { x.Left = Seconds(left) })
				holding = left > 0
			}
		}
	}
	s.search.update(func(x *Search) { x.Step, x.Left = len(st.Sizes), 0 })
	f := sizing.Recommend(st.Scenario, searchObs(s.Snapshot(), st, meters))
	s.search.update(func(x *Search) { x.Fit = &f })
	if f.Recommended >= 0 && !post(Action{Kind: SetWorkers, N: f.Recommended}) {
		canceled()
		return
	}
	s.search.update(func(x *Search) { x.Running = false })
	s.search.stop(false)
}

// searchObs are the search's sizes as sizing reads them: each size's row
// of the scenario (at the GOMAXPROCS in force) and its meter.
func searchObs(snap Snapshot, st Search, meters []sizing.Meter) []sizing.Obs {
	var obs []sizing.Obs
	for _, r := range snap.Sizes {
		i := slices.Index(st.Sizes, r.Workers)
		if r.Scenario != st.Scenario || i < 0 || r.GOMAXPROCS != snap.GOMAXPROCS {
			continue
		}
		j := r.JSON()
		obs = append(obs, sizing.Obs{Workers: r.Workers, ThroughputPerS: r.ThroughputPerS(),
			HeadlineP99MS: optMS(j.HeadlineP99MS), LoopP99MS: optMS(j.ProbeP99MS),
			ArrivalPerS: meters[i].ArrivalPerS(), ServiceMS: meters[i].ServiceMS(r.ThroughputPerS())})
	}
	return obs
}

func optMS(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}
