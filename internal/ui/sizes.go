package ui

import (
	"fmt"

	"github.com/offtop/offtop/internal/report"
	"github.com/offtop/offtop/internal/session"
)

// sizesPanel is "sizes tried": a row per pool size held at least
// report.MinHeld (and the current one) with its own figures (see
// session.SizeRow), the current row marked '>', the best '*', and the rule
// that picked it on the last line. It is exactly rows+sizesFixed lines: the
// table's rows are slots, so a new size fills one and moves nothing.
//
// The size search (the a key) shows in its title while it runs; once it
// has fitted, its size and rule replace the best line and its size is
// marked R.
func sizesPanel(s session.Snapshot, w, rows int) []string {
	t, more := report.For(s.Sizes, s.Scenario, report.MinHeld).Keep(rows)
	lines := t.Lines(false)
	q := s.Search
	fitted := q.Fit != nil && q.Scenario == s.Scenario && !q.Canceled
	out := []string{title("sizes tried", searchNote(s), w), theme.Faint.Render(lines[0])}
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
	for len(out) < rows+2 {
		hint := ""
		if len(out) == len(lines)+1 {
			hint = theme.Faint.Render("  press 0-9 to try a size; each row is measured at its size")
		}
		out = append(out, hint)
	}
	best := t.BestLine()
	if fitted {
		best = q.Fit.Short()
	}
	if more > 0 {
		best += fmt.Sprintf("  (+%d more at exit)", more)
	}
	return append(out, best)
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
	return theme.Faint.Render("auto: done, R marks the size")
}
