package report

import (
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/hist"
	_ "github.com/offtop/offtop/internal/scenarios" // registers the scenarios' headlines (workload.Register)
	"github.com/offtop/offtop/internal/session"
)

func row(w int, held time.Duration, head float64, cur bool) session.SizeRow {
	r := session.SizeRow{Scenario: "server", Workers: w, GOMAXPROCS: 2, Held: held, Current: cur, HeadlineName: "ping"}
	if head > 0 {
		r.Headline = hist.Summary{P99: time.Duration(head * float64(time.Millisecond)), Count: 10}
	}
	return r
}

// TestBestFollowsTheRule: the lowest headline p99 among sizes held 1s
// wins; a size held shorter, or with no figure, is not judged.
func TestBestFollowsTheRule(t *testing.T) {
	sizes := []session.SizeRow{
		row(0, 8*time.Second, 793, false), row(1, 8*time.Second, 8.4, false),
		row(2, 500*time.Millisecond, 1, false), row(4, 3*time.Second, 0, true),
	}
	tb := For(sizes, "server", MinHeld)
	if len(tb.Rows) != 3 || tb.Rows[2].Workers != 4 { // 2 held under 1s and not current: not listed
		t.Fatalf("rows %+v", tb.Rows)
	}
	if tb.Best != 1 {
		t.Errorf("best %d, want the 1-worker row", tb.Best)
	}
	if got := tb.BestLine(); got != "best: lowest ping p99 -> 1 worker (8.40 ms)" {
		t.Errorf("best line %q", got)
	}
	if all := For(sizes, "server", 0); len(all.Rows) != 4 || all.Best != 1 {
		t.Errorf("all rows: %d, best %d", len(all.Rows), all.Best)
	}
	if none := For(nil, "server", MinHeld); none.Best != -1 || none.BestLine() != "best: lowest ping p99 (no size with a figure yet, held 1s live)" {
		t.Errorf("no rows: %+v %q", none, none.BestLine())
	}
	// A sweep's rows are measured alike: no live wording.
	if none := Of("server", nil); none.Best != -1 || none.BestLine() != "best: lowest ping p99 (no size with a headline figure)" {
		t.Errorf("no sweep rows: %+v %q", none, none.BestLine())
	}
}

// TestLinesHaveFixedColumns: the panel's columns have fixed widths, so a
// figure growing never moves the next column's label or figure.
func TestLinesHaveFixedColumns(t *testing.T) {
	a := For([]session.SizeRow{row(1, 8*time.Second, 8.4, true)}, "server", 0).Lines(false)
	b := For([]session.SizeRow{row(1, 800*time.Second, 8400, true)}, "server", 0).Lines(false)
	if a[0] != b[0] || len(a[1]) != len(b[1]) {
		t.Errorf("columns moved:\n%s\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	if !strings.HasPrefix(a[1], ">*") {
		t.Errorf("current best row not marked: %q", a[1])
	}
}

// TestKeepKeepsCurrentAndBest: a table cut to n rows keeps the current and
// the best, then the first others, in table order.
func TestKeepKeepsCurrentAndBest(t *testing.T) {
	var sizes []session.SizeRow
	for w := range 8 {
		sizes = append(sizes, row(w, 2*time.Second, float64(10-w), w == 0))
	}
	tb, more := For(sizes, "server", 0).Keep(3)
	if HiddenNote(more) != "+5 rows hidden: 2, 3, 4, 5, 6 workers; all at exit" {
		t.Errorf("hidden note %q", HiddenNote(more))
	}
	if len(more) != 5 || len(tb.Rows) != 3 || tb.Rows[0].Workers != 0 || tb.Rows[1].Workers != 1 || tb.Rows[2].Workers != 7 || tb.Best != 2 {
		t.Errorf("kept %+v (best %d), %d more", tb.Rows, tb.Best, len(more))
	}
}

func TestFigure(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 8: "8", 8.41: "8.41", 57.02: "57.0", 793.4: "793", 0.0021: "0.002"} {
		if got := Figure(v); got != want {
			t.Errorf("Figure(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestForLeavesOutBriefSizes: For with MinHeld lists the sizes held 1s
// or more and the current one, and counts the rest (and their time) in
// Brief, which BriefLine says in one line.
func TestForLeavesOutBriefSizes(t *testing.T) {
	sizes := []session.SizeRow{row(1, 3*time.Second, 5, false), row(2, 10*time.Millisecond, 5, false),
		row(3, 20*time.Millisecond, 5, false), row(4, 0, 0, true)}
	tb := For(sizes, "server", MinHeld)
	if len(tb.Rows) != 2 || tb.Rows[0].Workers != 1 || tb.Rows[1].Workers != 4 {
		t.Errorf("rows %+v, want sizes 1 and 4 (current)", tb.Rows)
	}
	if tb.Brief != 2 || tb.BriefHeld != 30*time.Millisecond {
		t.Errorf("brief %d (%v), want 2 (30ms)", tb.Brief, tb.BriefHeld)
	}
	if l := tb.BriefLine(MinHeld); l != "2 sizes held under 1s not listed" {
		t.Errorf("brief line %q", l)
	}
	if l := For(sizes, "server", 0).BriefLine(0); l != "" {
		t.Errorf("brief line %q with nothing left out", l)
	}
}

// TestPriorityRowsApart: a size held plain and with priority workers is
// two rows, the priority one named "N prio", the columns still aligned.
func TestPriorityRowsApart(t *testing.T) {
	plain, prio := row(2, 8*time.Second, 8.4, false), row(2, 8*time.Second, 3.1, true)
	prio.Priority = true
	lines := For([]session.SizeRow{plain, prio}, "server", 0).Lines(false)
	if len(lines) != 3 {
		t.Fatalf("want a header and 2 rows:\n%s", strings.Join(lines, "\n"))
	}
	if strings.Contains(lines[1], "prio") || !strings.Contains(lines[2], "2 prio") || len(lines[1]) != len(lines[2]) {
		t.Errorf("rows not told apart or not aligned:\n%s", strings.Join(lines, "\n"))
	}
}

// TestBestTakesFewerWorkersWhenTied: rows whose figures are within
// workload.TieWithin of the best count as tied and the fewest workers
// win, the pick line naming the lower figure it passed over; out of the
// tie the lowest wins. Ties are judged against the best, not in row order.
func TestBestTakesFewerWorkersWhenTied(t *testing.T) {
	sizes := []session.SizeRow{row(1, 8*time.Second, 0.65, false), row(2, 8*time.Second, 0.428, false), row(3, 8*time.Second, 0.426, true)}
	tb := For(sizes, "server", MinHeld)
	if tb.Best != 1 || tb.TiedWith() != 2 {
		t.Fatalf("best %d, tied with %d: want 2 workers, tied with 3's", tb.Best, tb.TiedWith())
	}
	p := PickFor(session.Snapshot{}, tb)
	if !strings.Contains(p.Line, "pick: 2 workers, lowest ping p99 (0.428 ms") || !strings.Contains(p.Line, "; 3 workers read 0.426, within 10%: fewer workers") {
		t.Errorf("pick line %q", p.Line)
	}
	// 1.00 at 1 is within 10% of the lowest (0.91 at 2), 1.10 at 3 is not
	// (though within 10% of 1.00 seen before it): 1 worker.
	sizes = []session.SizeRow{row(3, 8*time.Second, 1.10, false), row(1, 8*time.Second, 1.00, false), row(2, 8*time.Second, 0.91, false)}
	if tb = For(sizes, "server", MinHeld); tb.Rows[tb.Best].Workers != 1 {
		t.Errorf("1.10, 1.00, 0.91: picked %d workers, want 1", tb.Rows[tb.Best].Workers)
	}
	sizes = []session.SizeRow{row(1, 8*time.Second, 1.2, false), row(2, 8*time.Second, 0.91, false)}
	if tb = For(sizes, "server", MinHeld); tb.Rows[tb.Best].Workers != 2 || tb.TiedWith() != -1 {
		t.Errorf("1.2, 0.91: picked %d workers (tied with %d), want 2 untied", tb.Rows[tb.Best].Workers, tb.TiedWith())
	}
}
