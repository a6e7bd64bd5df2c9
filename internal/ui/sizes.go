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
func sizesPanel(s session.Snapshot, w, rows int) []string {
	t, more := report.For(s.Sizes, s.Scenario, report.MinHeld).Keep(rows)
	lines := t.Lines(false)
	out := []string{title("sizes tried", "", w), theme.Faint.Render(lines[0])}
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
	for len(out) < rows+2 {
		hint := ""
		if len(out) == len(lines)+1 {
			hint = theme.Faint.Render("  press 0-9 to try a size; each row is measured at its size")
		}
		out = append(out, hint)
	}
	best := t.BestLine()
	if more > 0 {
		best += fmt.Sprintf("  (+%d more at exit)", more)
	}
	return append(out, best)
}
