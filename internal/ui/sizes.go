package ui

import (
	"fmt"
	"time"

	"github.com/offtop/offtop/internal/report"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
)

// sizesPanel is "sizes tried": a row per pool size held at least
// report.MinHeld (and the current one) with its own figures (see
// session.SizeRow), the current row marked '>', the best '*', and the rule
// that picked it on the last line. It is exactly rows+sizesFixed lines: the
// table's rows are slots, so a new size fills one and moves nothing.
//
// The size search (the a key) clears the rows when it starts and measures
// every size afresh: its title shows the size held and the time left, its
// last line says the rows were cleared and what it measures. Once it has
// fitted, its pick is marked R and two lines replace the best line (the
// last table slot gives up its place): the pick and its rule, and the
// figures the search read, labelled as its own; the rows go on growing
// after it, those figures do not.
func sizesPanel(s session.Snapshot, w, rows int) []string {
	q := s.Search
	fitted := q.Fit != nil && q.Scenario == s.Scenario && !q.Canceled
	running := q.Running && q.Scenario == s.Scenario
	slots := rows
	if fitted && rows > 1 {
		slots--
	}
	t, more := report.For(s.Sizes, s.Scenario, report.MinHeld).Keep(slots)
	lines := t.Lines(false)
	out := []string{cutTitle("sizes tried", searchNote(s), w), theme.Faint.Render(lines[0])}
	for i, l := range lines[1:] {
		marks, rest := t.Marks(i), l[len(t.Marks(i)):]
		switch {
		case fitted && t.Rows[i].Workers == q.Fit.Recommended:
			marks = marks[:1] + theme.Best.Render("R")
		case i == t.Best:
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
		case len(out) == len(lines)+1 && !running:
			hint = theme.Faint.Render("  press 0-9 to try a size; each row is measured at its size")
		}
		out = append(out, hint)
	}
	moreNote := ""
	if more > 0 {
		moreNote = fmt.Sprintf("  (+%d more at exit)", more)
	}
	best := t.BestLine() + moreNote
	switch {
	case running:
		best = theme.Warm.Render(searchPlan(q)) + moreNote
	case fitted:
		pick, figures := q.Fit.Short(scenarios.Headline(s.Scenario))
		best = pick + moreNote
		if slots < rows {
			out = append(out, best)
			best = theme.Faint.Render("  " + figures)
		}
	}
	return append(out, best)
}

// searchPlan is what a running search does, for the panel's last line:
// "auto: rows cleared, measuring 1..4 workers (4 sizes), 5s each".
func searchPlan(q session.Search) string {
	if len(q.Sizes) == 0 {
		return "auto: rows cleared"
	}
	return fmt.Sprintf("auto: rows cleared, measuring %d..%d workers (%d sizes), %s each, then fitting",
		q.Sizes[0], q.Sizes[len(q.Sizes)-1], len(q.Sizes), fmtDur(time.Duration(q.Hold)))
}

// searchNote is the size search's state for the panel's title: the size
// held and the time left while it runs, "canceled" after a key stopped
// it; "" when none has run on this scenario.
func searchNote(s session.Snapshot) string {
	q := s.Search
	switch {
	case q.Scenario != s.Scenario || q.Sizes == nil:
		return ""
	case q.Running && q.Step < len(q.Sizes):
		return theme.Warm.Render(fmt.Sprintf("auto: %s (%d of %d), %.0fs left; any key cancels",
			report.SizeName(q.Sizes[q.Step]), q.Step+1, len(q.Sizes), q.Left.Seconds()))
	case q.Running:
		return theme.Warm.Render("auto: fitting")
	case q.Canceled:
		return theme.Faint.Render("auto: canceled")
	case q.Err != "":
		return theme.Faint.Render("auto: stopped: " + q.Err)
	}
	return theme.Faint.Render("auto: done, R marks its pick")
}
