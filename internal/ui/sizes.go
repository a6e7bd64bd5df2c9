package ui

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/offtop/offtop/internal/report"
	"github.com/offtop/offtop/internal/session"
)

// sizesPanel is "sizes tried": a row per pool size held at least
// report.MinHeld (and the current one) with its own figures (see
// session.SizeRow), the current row marked '>', the pick '*', and the
// pick's line last (report.PickFor: the search's, else the best row, else
// the CPU rule's starting point), so the screen gives one answer. It is
// exactly rows+sizesFixed lines: the table's rows are slots, so a new size
// fills one and moves nothing. With more rows than slots the current and
// the picked rows stay (report.Keep) and the title names the rows hidden
// (report.HiddenNote), ahead of anything it cuts.
//
// A row held while the machine was busy shows '!' after its held time;
// while there is one, a slot states the rule (report.BusyRule). The size
// search (the a key) clears the rows when it starts and measures every
// size afresh: its title shows the size held and the time left, its last
// line says the rows were cleared and what it measures. Once it has
// fitted, the title gives the fit's verdict and, room allowing, a slot
// under the pick the figures the search read and the model (USL, N*,
// R^2).
func sizesPanel(s session.Snapshot, w, rows int) []string {
	q := s.Search
	running := q.Running && q.Scenario == s.Scenario
	full := report.For(s.Sizes, s.Scenario, report.MinHeld)
	pick := report.PickFor(s, full)
	if pick.From == report.FromSearch {
		full = full.WithBest(pick.Workers)
	}
	slots := rows
	busy := full.AnyBusy() && slots > 1
	if busy {
		slots--
	}
	figures := pick.From == report.FromSearch && slots > 1 && !running
	if figures {
		slots--
	}
	t, hidden := full.Keep(slots)
	cols := t.Columns(false, t.MixedGOMAXPROCS())
	if q.Scenario == s.Scenario && len(q.Spread) > 0 {
		cols = append(cols, spreadColumn(q))
	}
	cols = append(cols, routeColumns(s)...)
	lines := t.Render(cols)
	head := "sizes tried"
	if len(hidden) > 0 {
		head += " (" + report.HiddenNote(hidden) + ")"
	}
	out := []string{cutTitle(head, searchNote(s, pick), w), theme.Faint.Render(lines[0])}
	for i, l := range lines[1:] {
		marks, rest := t.Marks(i), l[len(t.Marks(i)):]
		if i == t.Best {
			marks = marks[:1] + theme.Best.Render(marks[1:])
		}
		if t.Rows[i].Current {
			rest = theme.Current.Render(rest)
		}
		out = append(out, marks+rest)
	}
	for len(out) < slots+2 {
		hint := ""
		switch {
		case len(out) == slots+1 && len(s.Earlier) > 0: // the last free slot
			e := s.Earlier[len(s.Earlier)-1]
			hint = theme.Faint.Render(fmt.Sprintf("  pid %d's rows (to %s) kept apart, for the summary at exit",
				e.PID, e.Until.Format("15:04:05")))
		case len(out) == len(lines)+1 && !running && s.Takes(session.SetWorkers):
			hint = theme.Faint.Render("  press 0-9 to try a size; each row is measured at its size")
		}
		out = append(out, hint)
	}
	if busy {
		out = append(out, theme.Warm.Render("  "+report.BusyRule))
	}
	last := pick.Line
	switch {
	case running:
		last = theme.Warm.Render(searchPlan(q))
	case figures:
		out = append(out, last)
		f := pick.Fit
		if pick.Figures != "" {
			f = pick.Figures + "; " + f
		}
		last = theme.Faint.Render("  " + f)
	}
	return append(out, last)
}

// routeColumns are an attached program's columns for the featured route
// (featuredRoute, the headline's; the e key moves it): under --load,
// first, the client's p99 of the requests due while the size was in force
// (from their due time), unless it is the rows' headline already (the
// target sizes are ranked by), then the middleware's p99 at each size
// (the row's served figures); none without the middleware.
func routeColumns(s session.Snapshot) []report.Column {
	route := featuredRoute(s)
	if s.Endpoints == nil || route == "" {
		return nil
	}
	var cols []report.Column
	if t := clientOf(s.LoadClient, route); t != nil && !rankedBy(s, session.ClientHeadline(t.Target)) {
		by := t.BySize
		cols = append(cols, report.Column{Head: "client p99 ms", Width: 13, Cell: func(_ int, r session.SizeJSON) string {
			if v, ok := by[r.Workers]; ok && v.Count > 0 {
				return fmtMs(v.P99)
			}
			return "n/a"
		}})
	}
	return append(cols, report.Column{Head: "route p99 ms", Width: 12, Cell: func(_ int, r session.SizeJSON) string { return routeP99(r.Served, route) }})
}

// rankedBy reports whether s's size rows of its scenario name headline
// as theirs.
func rankedBy(s session.Snapshot, headline string) bool {
	for _, r := range s.Sizes {
		if r.Scenario == s.Scenario {
			return r.HeadlineName == headline
		}
	}
	return false
}

// searchPlan is what a running search does, for the panel's last line:
// "auto: rows cleared; 1..4 workers in turn, 5s each, 2-3 passes to a
// steady pick" (76 columns: the panel is 80 wide at most screen widths),
// "2 passes" when the search takes a fixed number.
func searchPlan(q session.Search) string {
	if len(q.Sizes) == 0 {
		return "auto: rows cleared"
	}
	passes := fmt.Sprintf("%d-%d passes to a steady pick", session.SearchMinPasses, q.MaxPasses)
	if q.MaxPasses <= session.SearchMinPasses {
		passes = fmt.Sprintf("%d passes", q.MaxPasses)
	}
	return fmt.Sprintf("auto: rows cleared; %d..%d workers in turn, %s each, %s",
		q.Sizes[0], q.Sizes[len(q.Sizes)-1], fmtDur(time.Duration(q.Hold)), passes)
}

// spreadColumn is the search's spread for a row: the lowest and highest
// headline p99 of its passes ("1.10-1.32"), one figure after one pass,
// "" for a size it did not hold.
func spreadColumn(q session.Search) report.Column {
	return report.Column{Head: "pass p99 ms", Width: 11, Cell: func(_ int, r session.SizeJSON) string {
		i := slices.Index(q.Sizes, r.Workers)
		if i < 0 || i >= len(q.Spread) {
			return ""
		}
		lo, hi, n := math.Inf(1), math.Inf(-1), 0
		for _, v := range q.Spread[i] {
			if !math.IsNaN(v) {
				lo, hi, n = min(lo, v), max(hi, v), n+1
			}
		}
		switch {
		case n == 0:
			return "n/a"
		case n == 1:
			return report.Figure(lo)
		}
		return report.Figure(lo) + "-" + report.Figure(hi)
	}}
}

// searchNote is the size search's state for the panel's title: the size
// held and the time left while it runs, "canceled" after a key stopped
// it, the fit once done (pick.Fit); "" when none has run on this scenario.
func searchNote(s session.Snapshot, pick report.Pick) string {
	q := s.Search
	switch {
	case q.Scenario != s.Scenario || q.Sizes == nil:
		return ""
	case q.Running && q.Step < len(q.Sizes):
		return theme.Warm.Render(fmt.Sprintf("auto: %s (%d/%d, pass %d/%d), %.0fs left; any key cancels",
			report.SizeName(q.Sizes[q.Step]), q.Step+1, len(q.Sizes), q.Pass+1, max(q.MaxPasses, 1), q.Left.Seconds()))
	case q.Running:
		return theme.Warm.Render("auto: fitting")
	case q.Canceled:
		return theme.Faint.Render("auto: canceled")
	case q.Err != "":
		return theme.Faint.Render("auto: stopped: " + q.Err)
	case q.Uncertain != "":
		return theme.Warm.Render("auto: uncertain; " + pick.Verdict)
	}
	return theme.Faint.Render("auto: " + pick.Verdict)
}
