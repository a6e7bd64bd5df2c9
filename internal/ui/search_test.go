package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sizing"
)

// TestSizesPanelShowsTheSearch: while the search runs, the panel's title
// names the size held, its place and the time left; once fitted, the
// size picked is marked R and the rule's line replaces the best line; a
// canceled search says so and marks nothing. Every frame keeps its size.
func TestSizesPanelShowsTheSearch(t *testing.T) {
	s := richSnapshot()
	s.Search = session.Search{Running: true, Scenario: "server", Sizes: []int{1, 2, 3, 4}, Step: 1, Hold: session.Seconds(5 * time.Second), Left: session.Seconds(3 * time.Second)}
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {160, 48}} {
		out := plain(s, sz[0], sz[1], false)
		checkFits(t, out, sz[0], sz[1])
		if !strings.Contains(out, "auto: 2 workers (2 of 4), 3s left; any key cancels") {
			t.Errorf("%v: no progress\n%s", sz, out)
		}
		// The rows were cleared when it began: the screen says so.
		if !strings.Contains(out, "auto: rows cleared, measuring 1..4 workers (4 sizes), 5s each") {
			t.Errorf("%v: the search does not say it cleared the rows\n%s", sz, out)
		}
	}
	f := sizing.Recommend("server", []sizing.Obs{
		{Workers: 1, ThroughputPerS: 20, HeadlineP99MS: 8.4, LoopP99MS: 1.2},
		{Workers: 2, ThroughputPerS: 30, HeadlineP99MS: 57, LoopP99MS: 55},
	})
	s.Search = session.Search{Scenario: "server", Sizes: []int{1, 2, 3, 4}, Step: 4, Fit: &f}
	out := plain(s, 100, 30, false)
	checkFits(t, out, 100, 30)
	// The pick's line names each figure it read as the search's own.
	for _, want := range []string{"auto: done, R marks its pick", "auto R: 1 worker, lowest ping p99 with Loop p99 < 50 ms",
		"during the search: ping p99 8.4 ms, Loop p99 1.2 ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q\n%s", want, out)
		}
	}
	marked := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, " R     1 ") {
			marked++
		}
	}
	if marked != 1 {
		t.Errorf("the 1-worker row is not marked R\n%s", out)
	}
	s.Search.Canceled = true
	if out := plain(s, 100, 30, false); !strings.Contains(out, "auto: canceled") || strings.Contains(out, " R     1 ") {
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
