package sweep

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/offtop/offtop/internal/report"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/workload"
)

// Write prints r as a table: a first line naming GOMAXPROCS, NumCPU and
// any CPU limit, the size table of internal/report (the live panel's
// columns) with the sweep's own after them, one row per pool size, and
// the best size by the scenario's rule. With repeats every figure is the
// median of the runs with their min-max after it, and a row whose
// throughput or headline spreads over 10% says so in its last column.
// With a fit, the model, its verdict and the recommended size follow, and
// the recommended row is marked R.
func (r Result) Write(w io.Writer) error {
	limit := "none"
	if r.CPULimit != nil {
		limit = strconv.FormatFloat(*r.CPULimit, 'g', 3, 64) + " CPUs"
	}
	runs := ""
	if r.Repeat > 1 {
		runs = fmt.Sprintf(", %d runs each, interleaved: median (min-max)", r.Repeat)
		if slices.ContainsFunc(r.Rows, func(row Row) bool { return row.Repeats < r.Repeat }) {
			runs = fmt.Sprintf(", up to %d runs each (stopped early), interleaved: median (min-max)", r.Repeat)
		}
	}
	fmt.Fprintf(w, "%s: GOMAXPROCS %d, NumCPU %d, CPU limit %s, %gs per size%s\n",
		r.Scenario, r.GOMAXPROCS, r.NumCPU, limit, r.DurationS, runs)
	if a := r.Attach; a != nil {
		fmt.Fprintf(w, "attached at %s under %s: %s p99 is the client's, from each request's due time; server p99 the middleware's (route %s)\n",
			a.Addr, a.Load, a.Target, cmp.Or(a.Route, "unknown"))
	}
	sizes := make([]session.SizeJSON, len(r.Rows))
	for i, row := range r.Rows {
		sizes[i] = row.Size
		sizes[i].Workers = row.Workers
	}
	t := report.Of(r.Scenario, sizes)
	if a := r.Attach; a != nil && len(sizes) == 0 {
		// No row to name it: the rows would have had the target's.
		t.Spec = workload.HeadlineNamed(session.ClientHeadline(a.Target))
	}
	if r.latencyPick() {
		t = t.WithBest(r.Fit.Recommended) // one pick: the rule's (bestLine)
	}
	col := func(head string, cell func(row Row) string) report.Column {
		return report.Column{Head: head, Cell: func(i int, _ session.SizeJSON) string { return cell(r.Rows[i]) }}
	}
	figure := func(head string, get func(row Row) *float64) report.Column {
		return col(head, func(row Row) string { return rangeCell(row, get) })
	}
	var cols []report.Column
	for ci, c := range t.Columns(false, t.MixedGOMAXPROCS()) {
		if ci > 0 && c.Head != "GOMAXPROCS" && c.Head != "held" {
			c = spannedColumn(c, r.Rows)
		}
		if ci == 0 && r.Fit != nil && r.Fit.Recommended >= 0 {
			c = recommendedColumn(c, r.Rows, r.Fit.Recommended)
		}
		cols = append(cols, c)
	}
	cols = append(cols,
		figure("CPU s", func(row Row) *float64 { return ptr(row.CPUSeconds) }),
		col("speed-up", func(row Row) string { return num(row.Speedup) }),
		col("efficiency", func(row Row) string { return num(row.Efficiency) }),
	)
	if r.Attach == nil { // the agent sends no task histogram
		cols = append(cols, figure("task p99 ms", func(row Row) *float64 { return row.TaskP99MS }))
	}
	cols = append(cols, figure("RSS MiB", func(row Row) *float64 { return row.RSSMB }))
	if scenarios.Sizing(r.Scenario).Rule == scenarios.RuleLittle {
		cols = append(cols,
			figure("arrivals/s", func(row Row) *float64 { return ptr(row.ArrivalPerS) }),
			figure("service ms", func(row Row) *float64 { return row.ServiceMS }))
	}
	if len(r.Rows) > 0 && r.Rows[0].Name != "" { // a comparison: name the rows first
		cols = append([]report.Column{
			col("name", func(row Row) string { return row.Name }),
			col("Loops", func(row Row) string {
				if row.Loops == 0 {
					return "-"
				}
				return strconv.Itoa(row.Loops)
			}),
		}, cols...)
	}
	for _, k := range r.tableKeys() {
		cols = append(cols, figure(r.head(k), func(row Row) *float64 { return row.Extra[k] }))
	}
	cols = append(cols, col("answer", answer))
	if r.Repeat > 1 {
		cols = append(cols, report.Column{Head: "spread", Cell: func(i int, _ session.SizeJSON) string { return flagCell(r.Rows[i]) }})
	}
	lines := t.Render(cols)
	lines = append(lines, r.bestLine(t))
	if a := r.Attach; a != nil {
		lines = append(lines, a.RestoreLine())
	}
	if f := r.Fit; f != nil {
		line := f.Line
		if slices.ContainsFunc(r.Rows, func(row Row) bool { return row.Workers == f.Recommended }) {
			line += " (row R)"
		}
		verdict := "verdict: " + f.Verdict
		if f.Rule != scenarios.RuleKnee.String() { // the model is of throughput; the pick is not
			by := map[string]string{scenarios.RuleLatency.String(): "its headline p99", scenarios.RuleLittle.String(): "Little's law"}[f.Rule]
			verdict = fmt.Sprintf("throughput: %s (%s picks by %s, below)", f.Verdict, r.Scenario, by)
		}
		lines = append(lines, "fit: "+f.ModelLine(), verdict, line)
	}
	if r.Machine != nil {
		lines = append(lines, r.Machine.Line())
	}
	for _, m := range r.HdrLogMissing {
		lines = append(lines, fmt.Sprintf("--hdr-log: %s not written (%s)", m.Path, m.Error))
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, strings.TrimRight(l, " ")); err != nil {
			return err
		}
	}
	return nil
}

// tableKeys are the readout columns the table prints: r.Columns without
// those that repeat a column already there (the JSON keeps them all):
// the headline's own readout ("ping_p99_ms" beside "ping p99 ms", the
// same histogram over the same run), and the worst Loop's p99, which is
// the Loop p99 column's figure unless some row ran several Loops.
func (r Result) tableKeys() []string {
	twin := strings.ReplaceAll(scenarios.Headline(r.Scenario).Name, " ", "_") + "_p99_ms"
	if r.Attach != nil {
		twin = KeyClientP99 // the headline column's figure
	}
	loops := slices.ContainsFunc(r.Rows, func(row Row) bool { return row.Loops > 1 })
	return slices.DeleteFunc(slices.Clone(r.Columns), func(k string) bool {
		return k == twin || (k == "loop_worst_p99_ms" && !loops)
	})
}

// head is the table's heading of Extra key k: the key, or for an
// attached sweep's own keys, words.
func (r Result) head(k string) string {
	if r.Attach == nil {
		return k
	}
	switch k {
	case KeyServerP99:
		return r.Attach.Target + " server p99 ms"
	case KeyErrors:
		return "errors"
	}
	return k
}

// spannedColumn is c with each cell followed by its runs' range.
func spannedColumn(c report.Column, rows []Row) report.Column {
	cell := c.Cell
	c.Width = 0 // the ranges widen it
	c.Cell = func(i int, s session.SizeJSON) string {
		row := rows[i]
		if row.lo == nil {
			return cell(i, s)
		}
		return spanned(cell(i, s), cell(i, row.lo.Size), cell(i, row.hi.Size))
	}
	return c
}

// recommendedColumn is the size column with "R " before the recommended
// size (and two spaces before the others, so sizes stay aligned).
func recommendedColumn(c report.Column, rows []Row, n int) report.Column {
	cell := c.Cell
	c.Width = 0
	c.Cell = func(i int, s session.SizeJSON) string {
		if rows[i].Workers == n {
			return "R " + cell(i, s)
		}
		return cell(i, s)
	}
	return c
}

// num formats a figure with about three significant digits; n/a for nil.
func num(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return report.Figure(*v)
}

func answer(r Row) string {
	s := "n/a"
	if r.AnswerOK != nil {
		s = "wrong"
		if *r.AnswerOK {
			s = "ok"
		}
	}
	if !r.Balanced {
		s += " (counts off!)"
	}
	return s
}
