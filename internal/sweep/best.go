package sweep

import (
	"fmt"
	"strings"

	"github.com/offtop/offtop/internal/report"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/workload"
)

// latencyPick reports whether r's fit picks by the latency rule: the
// lowest headline p99, the table's own best figure, so the table's best
// (*) is the fit's pick (R) and bestLine says the rule whole.
func (r Result) latencyPick() bool {
	return r.Fit != nil && r.Fit.Rule == scenarios.RuleLatency.String()
}

// bestLine is the table's best size (t.Best) in one line with its rule
// and, by name, the rows the rule left out and why: "best: lowest /ping
// p99 with the Loop's p99 under 50 ms -> 4 workers (45.9 ms, row R); left
// out: inline (Loop p99 226 ms), 1, 2 (held busy, s!)". Without the
// latency rule it is report's BestLine and the busy rows it passed over.
func (r Result) bestLine(t report.Table) string {
	if !r.latencyPick() {
		line := t.BestLine()
		if busy := r.busyPassedOver(t); busy != "" {
			line += "; left out: " + busy + " (held busy, s!, while a clean row has a figure)"
		}
		return line
	}
	f := r.Fit
	rule := fmt.Sprintf("%s with the Loop's p99 under %g ms", t.Spec.Rule(), workload.LoopP99BoundMS)
	if t.Best < 0 {
		return "best: none by " + rule + ": " + strings.TrimPrefix(f.Line, "recommended: none: ")
	}
	line := fmt.Sprintf("best: %s -> %s (%s %s, row R)", rule, report.SizeName(f.Recommended),
		report.Figure(*t.Rows[t.Best].HeadlineP99MS), t.Spec.Unit)
	var loop, busy []string
	clean := !t.Rows[t.Best].MachineBusy
	for _, row := range t.Rows {
		switch {
		case row.Workers == f.Recommended:
		case row.HeadlineP99MS == nil:
			loop = append(loop, report.SizeCell(row.Workers)+" (no "+t.Spec.Label()+" figure)")
		case row.ProbeP99MS == nil || *row.ProbeP99MS > workload.LoopP99BoundMS:
			p := "n/a"
			if row.ProbeP99MS != nil {
				p = report.Figure(*row.ProbeP99MS) + " ms"
			}
			loop = append(loop, report.SizeCell(row.Workers)+" (Loop p99 "+p+")")
		case clean && row.MachineBusy:
			busy = append(busy, report.SizeCell(row.Workers))
		}
	}
	if len(busy) > 0 {
		loop = append(loop, strings.Join(busy, ", ")+" (held busy, s!, while a clean row is within)")
	}
	if len(loop) > 0 {
		line += "; left out: " + strings.Join(loop, ", ")
	}
	return line
}

// busyPassedOver names the rows held busy that report's best passed
// over for a clean one (they had a figure); "" when none.
func (r Result) busyPassedOver(t report.Table) string {
	if t.Best < 0 || t.Rows[t.Best].MachineBusy {
		return ""
	}
	var out []string
	for i, row := range t.Rows {
		if i != t.Best && row.MachineBusy && row.HeadlineP99MS != nil {
			out = append(out, report.SizeCell(row.Workers))
		}
	}
	return strings.Join(out, ", ")
}
