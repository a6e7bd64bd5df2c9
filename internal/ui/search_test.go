package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sizing"
	"github.com/offtop/offtop/internal/workload"
)

// TestSizesPanelShowsTheSearch: while the search runs, the panel's title
// names the size held, its place, its pass and the time left; once
// fitted, the title gives the fit (model, N*, R^2, verdict), the size
// picked is the one row marked '*' (no second mark), the pick's line
// names its rule and the figures the search read, and each row shows its
// spread over the passes; an uncertain search picks and marks nothing and
// says why; a canceled search says so and marks nothing. Every frame
// keeps its size.
func TestSizesPanelShowsTheSearch(t *testing.T) {
	s := richSnapshot()
	s.Search = session.Search{Running: true, Scenario: "server", Sizes: []int{1, 2, 3, 4}, Step: 1, Pass: 1, MaxPasses: 3,
		Hold: session.Seconds(5 * time.Second), Left: session.Seconds(3 * time.Second)}
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {160, 48}} {
		out := plain(s, sz[0], sz[1], false)
		checkFits(t, out, sz[0], sz[1])
		if !strings.Contains(out, "auto: 2 workers (2/4, pass 2/3), 3s left; any key cancels") {
			t.Errorf("%v: no progress\n%s", sz, out)
		}
		// The rows were cleared when it began: the screen says so.
		plan := "auto: rows cleared; 1..4 workers in turn, 5s each, 2-3 passes to a steady pick"
		if !strings.Contains(out, plan) {
			t.Errorf("%v: the search does not say it cleared the rows and its plan\n%s", sz, out)
		}
	}
	f := sizing.Recommend(workload.RuleLatency, []sizing.Obs{
		{Workers: 1, ThroughputPerS: 20, HeadlineP99MS: 8.4, LoopP99MS: 1.2},
		{Workers: 2, ThroughputPerS: 30, HeadlineP99MS: 57, LoopP99MS: 55},
		{Workers: 3, ThroughputPerS: 33, HeadlineP99MS: 60, LoopP99MS: 56},
		{Workers: 4, ThroughputPerS: 31, HeadlineP99MS: 70, LoopP99MS: 60},
	})
	s.Search = session.Search{Scenario: "server", Sizes: []int{1, 2, 8}, Step: 3, MaxPasses: 3, Fit: &f,
		Spread: session.Spreads{{8.1, 8.6}, {50, 57}, {190, 201}}, PassPicks: []int{1, 1}}
	out := plain(s, 100, 30, false)
	checkFits(t, out, 100, 30)
	for _, want := range []string{"auto: throughput peaks near", "(a good fit)", "; fit: USL N* ", "R^2 1.00", "pick: 1 worker, lowest ping p99 with Loop p99 < 50 ms, from the search",
		"during the search: ping p99 8.4 ms, Loop p99 1.2 ms", "pass p99 ms", "8.10-8.60", "190-201"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q\n%s", want, out)
		}
	}
	if strings.Contains(out, " R ") || strings.Count(out, " *") != 1 || !strings.Contains(out, " *     1 ") {
		t.Errorf("want one mark, '*' on the 1-worker row, no R\n%s", out)
	}
	s.Search.Uncertain = "machine busy: others up to 1.8 of 2 CPUs in 6 of 6 holds"
	out = plain(s, 100, 30, false)
	if !strings.Contains(out, "pick: none, the search is uncertain: machine busy") || strings.Contains(out, " *  ") || !strings.Contains(out, "auto: uncertain") {
		t.Errorf("uncertain\n%s", out)
	}
	s.Search.Uncertain, s.Search.Canceled = "", true
	if out := plain(s, 100, 30, false); !strings.Contains(out, "auto: canceled") || strings.Contains(out, "from the search") {
		t.Errorf("canceled\n%s", out)
	}
}

// TestAnyKeyCancelsTheSearch: while the Snapshot says the search runs,
// a key posts CancelAutoSize and nothing else; q still quits.
func TestAnyKeyCancelsTheSearch(t *testing.T) {
	f := newFake()
	m := New(f)
	m.snap.Search = session.Search{Running: true, Sizes: []int{1, 2}}
	for _, k := range []string{"3", "d", "?", "a"} {
		next, cmd := m.Update(KeyMsg(k))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if mm := next.(Model); mm.view.help || mm.view.detail {
			t.Errorf("%s toggled a view while cancelling", k)
		}
	}
	got := f.Actions()
	if len(got) != 4 {
		t.Fatalf("posted %v", got)
	}
	for _, a := range got {
		if a.Kind != session.CancelAutoSize {
			t.Errorf("posted %+v, want CancelAutoSize", a)
		}
	}
	if _, cmd := m.Update(KeyMsg("q")); cmd == nil {
		t.Error("q did not quit")
	}
}

// A search of a fixed number of passes (the attached search under a
// load takes 2) says that number, not a range of one.
func TestSearchPlanFixedPasses(t *testing.T) {
	q := session.Search{Running: true, Sizes: []int{0, 1, 2}, MaxPasses: session.SearchMinPasses, Hold: session.Seconds(5 * time.Second)}
	got := searchPlan(q)
	if want := "auto: rows cleared; 0..2 workers in turn, 5s each, 2 passes"; got != want {
		t.Errorf("plan %q, want %q", got, want)
	}
}
