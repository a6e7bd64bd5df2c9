// Package report renders the per-size rows of a session (session.SizeRow):
// the live "sizes tried" panel, the exit summary and the sweep table all
// print through it, so the same size shows the same figures everywhere.
// Every figure comes from the row's JSON form (session.SizeRow.JSON), so
// what is printed is exactly what the headless stream carries.
package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sizing"
	"github.com/offtop/offtop/internal/sysinfo"
	"github.com/offtop/offtop/internal/workload"
)

// MinHeld is how long a size must be held for the sizes panel to list it
// (the current size is listed at once).
const MinHeld = time.Second

// Table is one scenario's size rows, ready to print.
type Table struct {
	Scenario string
	// Spec is the scenario's headline (specOf).
	Spec workload.HeadlineSpec
	Rows []session.SizeJSON
	// Best is the index in Rows of the best size by Spec's rule among rows
	// with a headline figure; -1 when none has one.
	Best int
	// Brief counts the rows For left out, held under its minHeld, and
	// BriefHeld is their time held in all.
	Brief     int
	BriefHeld time.Duration
	// judgedHeld is how long a row must be held to be judged Best: MinHeld
	// live (For), 0 for rows measured alike (Of, a sweep's).
	judgedHeld time.Duration
}

// For returns scenario's rows of sizes, in their order; with minHeld > 0
// only rows held at least that long and the current one (the others
// counted in Brief). The live panel and the exit summary both list
// For(sizes, scenario, MinHeld).
func For(sizes []session.SizeRow, scenario string, minHeld time.Duration) Table {
	t := Table{Scenario: scenario, Best: -1}
	named := ""
	for _, r := range sizes {
		if r.Scenario != scenario {
			continue
		}
		named = r.HeadlineName
		if r.Held < minHeld && !r.Current {
			t.Brief++
			t.BriefHeld += r.Held
			continue
		}
		t.Rows = append(t.Rows, r.JSON())
	}
	t.Spec = specOf(scenario, named)
	t.judgedHeld = MinHeld
	t.Best = best(t.Rows, t.Spec, t.judgedHeld)
	return t
}

// BriefLine says how many sizes For left out as held too briefly; "" when
// none.
func (t Table) BriefLine(minHeld time.Duration) string {
	switch t.Brief {
	case 0:
		return ""
	case 1:
		return "1 size held under " + minHeld.String() + " not listed"
	}
	return strconv.Itoa(t.Brief) + " sizes held under " + minHeld.String() + " not listed"
}

// Of returns scenario's table of rows as they are (a sweep's, one per
// run, each measured as long as the others), the best marked.
func Of(scenario string, rows []session.SizeJSON) Table {
	t := Table{Scenario: scenario, Rows: rows}
	named := ""
	if len(rows) > 0 {
		named = rows[0].Headline
	}
	t.Spec = specOf(scenario, named)
	t.Best = best(t.Rows, t.Spec, 0)
	return t
}

// specOf is scenario's headline: the registered catalog's
// (workload.Registered: the scenarios', when linked), else the one its
// rows name (workload.HeadlineNamed; the Loop probe when they name none).
func specOf(scenario, named string) workload.HeadlineSpec {
	if c := workload.Registered(); c != nil {
		if in, ok := c.Info(scenario); ok {
			return in.Headline
		}
	}
	return workload.HeadlineNamed(named)
}

// Scenarios lists the scenarios of sizes in their order of first use.
func Scenarios(sizes []session.SizeRow) []string {
	var out []string
	for _, r := range sizes {
		if len(out) == 0 || out[len(out)-1] != r.Scenario {
			out = append(out, r.Scenario)
		}
	}
	return out
}

// best is the row with the best headline p99 by spec's rule; a tie goes
// to the fewer workers (the first: rows are ascending). Rows held under
// minHeld are not judged (live, their figure is a handful of samples), nor
// are rows measured on a busy machine (machine_busy) while a clean row
// with a figure exists (BusyRule).
func best(rows []session.SizeJSON, spec workload.HeadlineSpec, minHeld time.Duration) int {
	judged := func(r session.SizeJSON) bool { return r.HeadlineP99MS != nil && r.HeldS >= minHeld.Seconds() }
	clean := slices.ContainsFunc(rows, func(r session.SizeJSON) bool { return judged(r) && !r.MachineBusy })
	b := -1
	for i, r := range rows {
		if !judged(r) || clean && r.MachineBusy {
			continue
		}
		if b < 0 {
			b = i
			continue
		}
		v, w := *r.HeadlineP99MS, *rows[b].HeadlineP99MS
		if spec.LowerBetter && v < w || !spec.LowerBetter && v > w {
			b = i
		}
	}
	if b < 0 {
		return b
	}
	// Of the rows tied with the best (workload.Tied), the fewest workers.
	top := b
	for i, r := range rows {
		if judged(r) && (!clean || !r.MachineBusy) && workload.Tied(*r.HeadlineP99MS, *rows[top].HeadlineP99MS) && r.Workers < rows[b].Workers {
			b = i
		}
	}
	return b
}

// TiedWith is the row with the best headline figure of t's judged rows
// when it is not t.Best (the pick took fewer workers tied with it,
// workload.Tied); -1 when t.Best is that row, or there is none.
func (t Table) TiedWith() int {
	if t.Best < 0 {
		return -1
	}
	b := t.Best
	for i, r := range t.Rows {
		if r.HeadlineP99MS == nil || r.MachineBusy != t.Rows[t.Best].MachineBusy || r.HeldS < t.judgedHeld.Seconds() {
			continue
		}
		v, w := *r.HeadlineP99MS, *t.Rows[b].HeadlineP99MS
		if t.Spec.LowerBetter && v < w || !t.Spec.LowerBetter && v > w {
			b = i
		}
	}
	if b == t.Best {
		return -1
	}
	return b
}

// BestLine is the rule and its answer in one line, such as
// "best: lowest ping p99 -> 1 worker (8.4 ms)", or why there is none:
// live (For), no size held long enough with a figure yet; of a sweep's
// rows (Of), none with a headline figure.
func (t Table) BestLine() string {
	switch {
	case t.Best < 0 && t.judgedHeld > 0:
		return "best: " + t.Spec.Rule() + " (no size with a figure yet, held " + t.judgedHeld.String() + " live)"
	case t.Best < 0:
		return "best: " + t.Spec.Rule() + " (no size with a headline figure)"
	}
	r := t.Rows[t.Best]
	return "best: " + t.Spec.Rule() + " -> " + SizeName(r.Workers) + " (" + Figure(*r.HeadlineP99MS) + " " + t.Spec.Unit + ")"
}

// BusyRule is the rule for rows measured beside other work, as the panel
// and the summary state it under the table: a row whose held time ends in
// '!' was held while others took more than sysinfo.BusyShare of the CPUs.
var BusyRule = fmt.Sprintf("s! held while others took >%.0f%% of CPUs: not picked while a clean row exists", 100*sysinfo.BusyShare)

// HeldCell is a row's held time, "4.5s", with '!' after it when the
// row was measured on a busy machine (BusyRule).
func HeldCell(r session.SizeJSON) string {
	if r.MachineBusy {
		return Figure(r.HeldS) + "s!"
	}
	return Figure(r.HeldS) + "s"
}

// AnyBusy reports whether a row of t was measured on a busy machine.
func (t Table) AnyBusy() bool {
	return slices.ContainsFunc(t.Rows, func(r session.SizeJSON) bool { return r.MachineBusy })
}

// SizeName is a pool size in words: "inline", "1 worker", "4 workers".
func SizeName(workers int) string { return sizing.SizeName(workers) }

// SizeCell is a pool size in a table: "inline" for 0, else the number.
func SizeCell(workers int) string {
	if workers == 0 {
		return "inline"
	}
	return strconv.Itoa(workers)
}

// sizeCell is the size column's cell: SizeCell, "N prio" for priority
// workers.
func sizeCell(r session.SizeJSON) string {
	if r.Priority {
		return SizeCell(r.Workers) + " prio"
	}
	return SizeCell(r.Workers)
}

// Column is one column of a size table.
type Column struct {
	Head string
	// Width is the column's cells; 0 sizes it to its widest cell (a
	// printed table; the live panel's columns have fixed widths, so no
	// figure moves another).
	Width int
	// Cell is row i's text; r is t.Rows[i].
	Cell func(i int, r session.SizeJSON) string
}

// Columns are the table's columns: the panel's six, and with wide the
// summary's two more (probe max, answer_ok). The headline column is named
// after the scenario's headline. gomaxprocs adds a GOMAXPROCS column (rows
// differ in it).
func (t Table) Columns(wide, gomaxprocs bool) []Column {
	hl := t.Spec.Label() + " " + t.Spec.Unit
	sw := 6
	for _, r := range t.Rows {
		if r.Priority {
			sw = 8 // "256 prio"
		}
	}
	cols := []Column{
		{"size", sw, func(_ int, r session.SizeJSON) string { return sizeCell(r) }},
	}
	if gomaxprocs {
		cols = append(cols, Column{"GOMAXPROCS", 10, func(_ int, r session.SizeJSON) string { return strconv.Itoa(r.GOMAXPROCS) }})
	}
	cols = append(cols,
		Column{"held", 6, func(_ int, r session.SizeJSON) string { return HeldCell(r) }},
		Column{"Loop p99 ms", 11, func(_ int, r session.SizeJSON) string { return Opt(r.ProbeP99MS) }},
	)
	if wide {
		cols = append(cols, Column{"Loop max ms", 11, func(_ int, r session.SizeJSON) string { return Opt(r.ProbeMaxMS) }})
	}
	if !t.Spec.FromProbe { // for stall the headline is the probe: no second copy
		cols = append(cols, Column{hl, max(len(hl), 6), func(_ int, r session.SizeJSON) string { return Opt(r.HeadlineP99MS) }})
	}
	cols = append(cols,
		Column{"tasks/s", 7, func(_ int, r session.SizeJSON) string { return Figure(r.ThroughputPerS) }},
		Column{"CPU/wall", 8, func(_ int, r session.SizeJSON) string { return Opt(r.CPUPerWall) }},
	)
	if wide {
		cols = append(cols, Column{"answer_ok", 9, func(_ int, r session.SizeJSON) string { return Answer(r.AnswerOK) }})
	}
	return cols
}

// MixedGOMAXPROCS reports whether rows differ in GOMAXPROCS.
func (t Table) MixedGOMAXPROCS() bool {
	for _, r := range t.Rows {
		if r.GOMAXPROCS != t.Rows[0].GOMAXPROCS {
			return true
		}
	}
	return false
}

// Marks are the two-rune prefix of a row: '>' the current size, '*' the
// best; both fit in two columns.
func (t Table) Marks(i int) string {
	cur, b := " ", " "
	if t.Rows[i].Current {
		cur = ">"
	}
	if i == t.Best {
		b = "*"
	}
	return cur + b
}

// Lines renders the table: a header and one line per row, right-aligned
// columns two spaces apart, each row led by its marks. The same text is the
// panel's body and the summary's table.
func (t Table) Lines(wide bool) []string {
	return t.Render(t.Columns(wide, t.MixedGOMAXPROCS()))
}

// Render is the table with the given columns (Columns' and any of the
// caller's own, such as the sweep's speed-up): a header and one line per
// row, right-aligned columns two spaces apart, each row led by its marks.
func (t Table) Render(cols []Column) []string {
	cols = append([]Column(nil), cols...)
	for ci, c := range cols {
		if c.Width == 0 {
			w := len(c.Head)
			for i, r := range t.Rows {
				w = max(w, len(c.Cell(i, r)))
			}
			cols[ci].Width = w
		}
	}
	var b strings.Builder
	line := func(marks string, cell func(c Column) string) string {
		b.Reset()
		b.WriteString(marks)
		for i, c := range cols {
			if i > 0 {
				b.WriteString("  ")
			}
			s := cell(c)
			b.WriteString(strings.Repeat(" ", max(c.Width-len(s), 0)))
			b.WriteString(s)
		}
		return b.String()
	}
	out := []string{line("  ", func(c Column) string { return c.Head })}
	for i, r := range t.Rows {
		out = append(out, line(t.Marks(i), func(c Column) string { return c.Cell(i, r) }))
	}
	return out
}

// Opt formats a figure that may be missing: n/a for nil.
func Opt(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return Figure(*v)
}

// Answer is an answer_ok cell: ok, wrong or n/a.
func Answer(v *bool) string {
	switch {
	case v == nil:
		return "n/a"
	case *v:
		return "ok"
	}
	return "wrong"
}

// Figure formats a figure for a table with about three significant
// digits, whole numbers whole; n/a for NaN or an infinity. Every table of
// offtop prints with it.
func Figure(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case v == math.Trunc(v) && a < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64) // a count reads whole
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}

// Keep returns t with at most n rows: the current and the best first,
// then the others in order, kept in table order; and the rows left out,
// in table order.
func (t Table) Keep(n int) (Table, []session.SizeJSON) {
	if n <= 0 || len(t.Rows) <= n {
		return t, nil
	}
	keep := make([]bool, len(t.Rows))
	left := n
	mark := func(i int) {
		if i >= 0 && !keep[i] && left > 0 {
			keep[i] = true
			left--
		}
	}
	for i, r := range t.Rows {
		if r.Current {
			mark(i)
		}
	}
	mark(t.Best)
	for i := range t.Rows {
		mark(i)
	}
	out := Table{Scenario: t.Scenario, Spec: t.Spec, Best: -1}
	var hid []session.SizeJSON
	for i, r := range t.Rows {
		if !keep[i] {
			hid = append(hid, r)
			continue
		}
		if i == t.Best {
			out.Best = len(out.Rows)
		}
		out.Rows = append(out.Rows, r)
	}
	return out, hid
}

// HiddenNote says which rows Keep left out, for the panel's title: "+1
// row hidden: 4 workers; all at exit", "+2 rows hidden: 3, 4 workers;
// all at exit"; "" when none.
func HiddenNote(left []session.SizeJSON) string {
	if len(left) == 0 {
		return ""
	}
	names := make([]string, len(left))
	for i, r := range left {
		names[i] = sizeCell(r)
	}
	rows := "rows"
	if len(left) == 1 {
		rows = "row"
	}
	unit := " workers"
	if len(left) == 1 && left[0].Workers == 1 && !left[0].Priority {
		unit = " worker"
	}
	if names[len(names)-1] == "inline" {
		unit = ""
	}
	return fmt.Sprintf("+%d %s hidden: %s%s; all at exit", len(left), rows, strings.Join(names, ", "), unit)
}
