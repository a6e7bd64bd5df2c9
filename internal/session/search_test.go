package session

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/testkit"
)

func TestSearchSizes(t *testing.T) {
	for _, c := range []struct {
		cpus float64
		want []int
	}{
		{2, []int{1, 2, 3, 4}},
		{1, []int{1, 2, 3, 4}},   // the fit needs four sizes
		{1.5, []int{1, 2, 3, 4}}, // 2 x 1.5 = 3, still four
		{3, []int{1, 2, 3, 4, 5, 6}},
		{6, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{16, []int{1, 2, 3, 4, 6, 9, 13, 19, 28, 32}},
	} {
		if got := SearchSizes(c.cpus); !slices.Equal(got, c.want) {
			t.Errorf("SearchSizes(%v) = %v, want %v", c.cpus, got, c.want)
		}
	}
}

// TestSearchStepsFitsAndSets: the search holds every size for a window,
// in order, fills a size row for each, fits, and leaves the pool at the
// size it picked (or, its passes disagreeing, at the size before); the
// Snapshot (and its JSON) carry it throughout.
func TestSearchStepsFitsAndSets(t *testing.T) {
	s, clk := onFake(t, Config{Scenario: "count", Workers: 2, Scale: 0.01, Window: 300 * time.Millisecond})
	if err := s.Apply(Action{Kind: AutoSize}); err != nil {
		t.Fatal(err)
	}
	var steps []int
	testkit.StepUntil(t, clk, "the search to finish", func() bool {
		q := s.Snapshot().Search
		if q.Running && q.Step < len(q.Sizes) && !slices.Contains(steps, q.Sizes[q.Step]) {
			steps = append(steps, q.Sizes[q.Step])
		}
		return q.Done()
	})
	snap := s.Snapshot()
	q := snap.Search
	if q.Canceled || q.Err != "" || q.Fit == nil || q.Fit.Rule != "knee" || time.Duration(q.Hold) != 300*time.Millisecond {
		t.Fatalf("search %+v", q)
	}
	if !slices.Equal(q.Sizes, SearchSizes(snap.UsableCPUs)) || !slices.IsSorted(steps) || len(steps) < len(q.Sizes)-1 {
		t.Errorf("sizes %v, seen held %v", q.Sizes, steps)
	}
	for _, n := range q.Sizes {
		i := slices.IndexFunc(snap.Sizes, func(r SizeRow) bool { return r.Workers == n && r.Scenario == "count" })
		if i < 0 || snap.Sizes[i].Held < 250*time.Millisecond {
			t.Errorf("size %d: row %v", n, i)
		}
	}
	// The machine is quiet (newSession's): the search answers once two
	// passes agree, or says its passes disagreed at the bound and puts
	// the pool back; the count scenario's knee may move on a loaded test
	// machine, so both are its behaviour.
	switch n := len(q.PassPicks); {
	case q.Uncertain == "":
		if q.Fit.Recommended < 1 || snap.Workers != q.Fit.Recommended || n < SearchMinPasses || q.PassPicks[n-1] != q.PassPicks[n-2] {
			t.Errorf("recommended %d, pool at %d, pass picks %v", q.Fit.Recommended, snap.Workers, q.PassPicks)
		}
	case n != SearchMaxPasses || !strings.HasPrefix(q.Uncertain, "its passes picked ") || snap.Workers != 2:
		t.Errorf("uncertain %q after pass picks %v, pool at %d: want the passes named at the bound, the pool back at 2", q.Uncertain, q.PassPicks, snap.Workers)
	}
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Search *struct {
			Sizes []int
			Fit   *struct {
				Recommended int `json:"recommended"`
			}
		}
	}
	if err := json.Unmarshal(b, &j); err != nil || j.Search == nil || j.Search.Fit == nil || j.Search.Fit.Recommended != q.Fit.Recommended {
		t.Errorf("JSON search: %v %s", err, b)
	}
}

// TestAnyActionCancelsTheSearch: a key's action during the search stops
// it there; the key's own action holds, the search sets nothing after,
// not even once the clock (a fake one) has passed every size's hold.
func TestAnyActionCancelsTheSearch(t *testing.T) {
	clk := clock.NewFake(time.Now())
	s := newSession(t, Config{Scenario: "count", Workers: 2, Scale: 0.01, Window: 2 * time.Second, Clock: clk})
	if err := s.Apply(Action{Kind: AutoSize}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the search to hold a size", func() bool { q := s.Snapshot().Search; return q.Running && q.Left > 0 })
	if err := s.Apply(Action{Kind: SetWorkers, N: 7}); err != nil {
		t.Fatal(err)
	}
	q := s.Snapshot().Search
	if q.Running || !q.Canceled || q.Fit != nil {
		t.Errorf("search after a key: %+v", q)
	}
	// Past the holds of all the sizes, a sample at a time: a search still
	// running would have set the next size by now.
	timeout := time.After(20 * time.Second)
	for range len(q.Sizes)*int(time.Duration(q.Hold)/(20*time.Millisecond)) + 1 {
		clk.Advance(20 * time.Millisecond) // newSession's Interval
		select {
		case <-s.Samples():
		case <-timeout:
			t.Fatal("no sample after the clock moved")
		}
	}
	if w := s.Snapshot().Workers; w != 7 {
		t.Errorf("workers %d after the cancel, want the key's 7", w)
	}
	// CancelAutoSize does the same; with no search it is a no-op.
	if err := s.Apply(Action{Kind: CancelAutoSize}); err != nil {
		t.Error(err)
	}
}

// TestCanceledSearchPostsNothing: an action the search queued behind a
// key that canceled it is dropped, so the key's size holds.
func TestCanceledSearchPostsNothing(t *testing.T) {
	s := newSession(t, Config{Scenario: "count", Workers: 2, Scale: 0.01})
	if err := s.Apply(Action{Kind: SetWorkers, N: 5}); err != nil {
		t.Fatal(err)
	}
	// No search runs: a search's action is dropped.
	if err := s.Apply(Action{Kind: SetWorkers, N: 1, search: true}); err != nil {
		t.Fatal(err)
	}
	if w := s.Snapshot().Workers; w != 5 {
		t.Errorf("workers %d, want 5: a stale search action applied", w)
	}
}

// TestResetForgetsTheSearch: r after a finished search clears its result
// with the rows it measured (the newcomer's finding: the R mark and the
// "auto: done" title outlived the rows), and r during one cancels it and
// forgets it too.
func TestResetForgetsTheSearch(t *testing.T) {
	s, clk := onFake(t, Config{Scenario: "count", Workers: 2, Scale: 0.01, Window: 200 * time.Millisecond})
	if err := s.Apply(Action{Kind: AutoSize}); err != nil {
		t.Fatal(err)
	}
	testkit.StepUntil(t, clk, "the search to finish", func() bool { return s.Snapshot().Search.Done() })
	if err := s.Apply(Action{Kind: Reset}); err != nil {
		t.Fatal(err)
	}
	if q := s.Snapshot().Search; q.Fit != nil || q.Sizes != nil || q.Scenario != "" || q.Running {
		t.Errorf("search after r: %+v", q)
	}
	if err := s.Apply(Action{Kind: AutoSize}); err != nil {
		t.Fatal(err)
	}
	testkit.StepUntil(t, clk, "the search to hold a size", func() bool { q := s.Snapshot().Search; return q.Running && q.Left > 0 })
	q := s.Snapshot().Search
	if err := s.Apply(Action{Kind: Reset}); err != nil {
		t.Fatal(err)
	}
	// Past the holds of every size of every pass: a search still running
	// would have moved or finished by now.
	for end := clk.Now().Add(time.Duration(SearchMaxPasses*len(q.Sizes)+1) * time.Duration(q.Hold)); clk.Now().Before(end); {
		if _, ok := clk.Step(testkit.Patience); !ok {
			t.Fatal("nothing waits on the fake clock: the sampler stopped")
		}
	}
	if q := s.Snapshot().Search; q.Fit != nil || q.Sizes != nil || q.Running || q.Canceled {
		t.Errorf("search after r during it: %+v", q)
	}
}

// TestSearchInterleavesAndSaysUncertain: the search holds its sizes in
// passes, 1, 2, 3, 4, 1, 2, 3, 4, ..., each size's spread one figure a
// pass; with others taking 2 of 2 CPUs throughout it gives no answer: it
// says the machine was busy and sets the pool back to the size before.
func TestSearchInterleavesAndSaysUncertain(t *testing.T) {
	clk := clock.NewFake(time.Now())
	fm := &fakeMachine{clk: clk, cpus: 2, rate: 2}
	s := newSession(t, Config{Scenario: "count", Workers: 2, Scale: 0.01, Window: 200 * time.Millisecond, Machine: fm, Clock: clk})
	if err := s.Apply(Action{Kind: AutoSize}); err != nil {
		t.Fatal(err)
	}
	var seen []int // the sizes held, in order, each once a hold
	last := [2]int{-1, -1}
	testkit.StepUntil(t, clk, "the search to finish", func() bool {
		q := s.Snapshot().Search
		if q.Running && q.Step < len(q.Sizes) && [2]int{q.Pass, q.Step} != last {
			last = [2]int{q.Pass, q.Step}
			seen = append(seen, q.Sizes[q.Step])
		}
		return q.Done()
	})
	snap := s.Snapshot()
	q := snap.Search
	passes := len(q.PassPicks)
	if passes < SearchMinPasses || passes > SearchMaxPasses {
		t.Fatalf("%d passes, want %d..%d: %+v", passes, SearchMinPasses, SearchMaxPasses, q)
	}
	for i := range seen {
		if i >= len(q.Sizes) && seen[i] != seen[i-len(q.Sizes)] {
			t.Errorf("held %v: not the sizes in turn, pass after pass", seen)
			break
		}
	}
	for i, v := range q.Spread {
		if len(v) != passes {
			t.Errorf("size %d: spread %v, want one figure a pass (%d)", q.Sizes[i], v, passes)
		}
	}
	if q.BusyHolds == 0 || q.OthersMaxCPUs < 1.5 || !strings.Contains(q.Uncertain, "machine busy: others up to 2.0 of 2 CPUs") {
		t.Errorf("busy holds %d, others max %v, uncertain %q", q.BusyHolds, q.OthersMaxCPUs, q.Uncertain)
	}
	if snap.Workers != 2 {
		t.Errorf("pool at %d after an uncertain search, want 2, the size before", snap.Workers)
	}
}

// TestSearchResumesAPausedLoad: a on a paused scenario resumes its load
// (a hold of a paused load would measure nothing) and the search runs.
func TestSearchResumesAPausedLoad(t *testing.T) {
	s, step := stepped(t, Config{Scenario: "stall", Workers: 1, Paused: true, Interval: 20 * time.Millisecond})
	if snap := step(); !snap.Paused {
		t.Fatal("not paused at the start")
	}
	if err := s.Apply(Action{Kind: AutoSize}); err != nil {
		t.Fatal(err)
	}
	if snap := step(); snap.Paused || !snap.Search.Running {
		t.Errorf("after a: paused %v, search running %v; want resumed, running", snap.Paused, snap.Search.Running)
	}
	if err := s.Apply(Action{Kind: CancelAutoSize}); err != nil {
		t.Fatal(err)
	}
}
