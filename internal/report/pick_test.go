package report

import (
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sizing"
	"github.com/offtop/offtop/internal/workload"
)

func busy(r session.SizeRow) session.SizeRow {
	r.OthersKnown, r.OthersSeconds, r.OthersWall, r.MachineBusy = true, 1.8*r.Held.Seconds(), r.Held, true
	return r
}

// TestBestSkipsBusyRows: a row held while the machine was busy is not
// best while a clean row with a figure exists, however low its figure;
// with every row busy the best of them is, and the pick says uncertain.
// Its held cell ends in '!'.
func TestBestSkipsBusyRows(t *testing.T) {
	sizes := []session.SizeRow{busy(row(1, 8*time.Second, 1.1, false)), row(2, 8*time.Second, 58.5, true)}
	tb := For(sizes, "server", MinHeld)
	if tb.Best != 1 {
		t.Fatalf("best %d, want the clean 2-worker row, not the busy 1", tb.Best)
	}
	if got := HeldCell(tb.Rows[0]); got != "8s!" {
		t.Errorf("busy row's held cell %q, want 8s!", got)
	}
	if !tb.AnyBusy() || !strings.Contains(BusyRule, "25%") {
		t.Errorf("AnyBusy %v, rule %q", tb.AnyBusy(), BusyRule)
	}
	p := PickFor(session.Snapshot{Run: session.Run{Scenario: "server"}}, tb)
	if p.Workers != 2 || p.From != FromRows || !strings.HasPrefix(p.Line, "pick: 2 workers, lowest ping p99 (58.5 ms") {
		t.Errorf("pick %+v", p)
	}
	all := For([]session.SizeRow{busy(row(1, 8*time.Second, 1.1, false)), busy(row(2, 8*time.Second, 58.5, true))}, "server", MinHeld)
	p = PickFor(session.Snapshot{Run: session.Run{Scenario: "server"}}, all)
	if all.Best != 0 || !strings.HasPrefix(p.Line, "pick: 1 worker (uncertain: all rows busy), ") {
		t.Errorf("every row busy: best %d, pick %q: want the 1-worker row, said uncertain before its figures", all.Best, p.Line)
	}
}

// TestPickSources: before any row the CPU rule gives the starting point,
// not a pick; a finished search's pick is the pick and the mark; an
// uncertain search picks nothing and marks nothing.
func TestPickSources(t *testing.T) {
	s := session.Snapshot{Run: session.Run{Scenario: "server"},
		Machine: session.Machine{SuggestedWorkers: 1, SuggestedRule: "suggest 1 = cores - 1"}}
	p := PickFor(s, For(nil, "server", MinHeld))
	if p.Workers != -1 || p.From != FromCPU || !strings.Contains(p.Line, "start at 1 worker by the CPU rule (suggest 1 = cores - 1)") {
		t.Errorf("no rows: %+v", p)
	}
	f := sizing.Recommend(workload.RuleLatency, []sizing.Obs{
		{Workers: 1, ThroughputPerS: 16, HeadlineP99MS: 4, LoopP99MS: 2}, {Workers: 2, ThroughputPerS: 30, HeadlineP99MS: 3, LoopP99MS: 2},
		{Workers: 3, ThroughputPerS: 40, HeadlineP99MS: 5, LoopP99MS: 3}, {Workers: 4, ThroughputPerS: 42, HeadlineP99MS: 9, LoopP99MS: 4}})
	s.Sizes = []session.SizeRow{row(1, 8*time.Second, 1, false), row(2, 8*time.Second, 3, true)}
	s.Search = session.Search{Scenario: "server", Sizes: []int{1, 2, 3, 4}, Fit: &f}
	tb := For(s.Sizes, "server", MinHeld)
	p = PickFor(s, tb)
	if p.From != FromSearch || p.Workers != f.Recommended || !strings.HasPrefix(p.Line, "pick: 2 workers, lowest ping p99 with Loop p99 < 50 ms") ||
		!strings.HasPrefix(p.Fit, "fit: USL ") || !strings.Contains(p.Fit, "R^2") || p.Verdict == "" || strings.Contains(p.Verdict, "R^2") {
		t.Errorf("search: %+v (recommended %d)", p, f.Recommended)
	}
	if m := tb.WithBest(p.Workers); m.Best != 1 {
		t.Errorf("the mark follows the search's pick: best %d, want the 2-worker row", m.Best)
	}
	s.Search.Uncertain = "machine busy"
	p = PickFor(s, tb)
	if p.Workers != -1 || !strings.Contains(p.Line, "pick: none, the search is uncertain: machine busy") || tb.WithBest(p.Workers).Best != -1 {
		t.Errorf("uncertain search: %+v", p)
	}
}

// TestPickNamesPriorityRows: when the best row is one of priority
// workers, the pick line says so, and a plain row of the same size is
// not called priority.
func TestPickNamesPriorityRows(t *testing.T) {
	prio := row(2, 8*time.Second, 1.5, true)
	prio.Priority = true
	s := session.Snapshot{Run: session.Run{Scenario: "server"}}
	p := PickFor(s, For([]session.SizeRow{row(2, 8*time.Second, 9.5, false), prio}, "server", MinHeld))
	if !strings.HasPrefix(p.Line, "pick: 2 priority workers, lowest ping p99 (1.50 ms") {
		t.Errorf("priority row picked: %q", p.Line)
	}
	one := row(1, 8*time.Second, 1.5, true)
	one.Priority = true
	if p := PickFor(s, For([]session.SizeRow{one}, "server", MinHeld)); !strings.HasPrefix(p.Line, "pick: 1 priority worker, ") {
		t.Errorf("1 priority worker picked: %q", p.Line)
	}
	p = PickFor(s, For([]session.SizeRow{row(2, 8*time.Second, 1.5, false), row(3, 8*time.Second, 9.5, true)}, "server", MinHeld))
	if !strings.HasPrefix(p.Line, "pick: 2 workers, ") {
		t.Errorf("plain row picked: %q", p.Line)
	}
}

// A search that ranked by another figure than the table's headline (an
// attached program under a load: its target's client p99) is named by
// that figure in the pick, not by the probe.
func TestSearchPickNamesItsHeadline(t *testing.T) {
	f := sizing.Recommend(workload.RuleLatency, []sizing.Obs{
		{Workers: 1, ThroughputPerS: 20, HeadlineP99MS: 1.2, LoopP99MS: 0.3},
		{Workers: 2, ThroughputPerS: 30, HeadlineP99MS: 9, LoopP99MS: 20},
	})
	q := session.Search{Scenario: "service", Sizes: []int{1, 2}, Headline: "/ping client", Fit: &f}
	tb := Table{Scenario: "service", Spec: workload.ProbeHeadline, Best: -1}
	p := PickFor(session.Snapshot{Run: session.Run{Scenario: "service"}, Search: q}, tb)
	if !strings.HasPrefix(p.Line, "pick: 1 worker, lowest /ping client p99") || !strings.Contains(p.Figures, "/ping client p99 1.2 ms") {
		t.Errorf("pick %q / %q: want it named by the /ping client p99", p.Line, p.Figures)
	}
	q.Headline = ""
	p = PickFor(session.Snapshot{Run: session.Run{Scenario: "service"}, Search: q}, tb)
	if !strings.Contains(p.Line, "lowest probe p99") {
		t.Errorf("pick %q: without a Headline, the table's (probe)", p.Line)
	}
}
