package report

import (
	"fmt"
	"strings"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sizing"
	"github.com/offtop/offtop/internal/workload"
)

// Where a Pick came from.
const (
	FromRows   = "rows"     // the best of the sizes tried (Table.Best)
	FromSearch = "search"   // the size search's fit (the a key)
	FromCPU    = "CPU rule" // no row yet: the CPU rule's starting point
)

// Pick is the one answer the live panel and the exit summary give for a
// scenario: the size, where it came from and its rule with the figures
// it read.
type Pick struct {
	// Workers is the size picked; -1 when there is none (no row yet, or
	// the search was uncertain).
	Workers int
	From    string
	// Line is the pick, its rule and its figures in one line ("pick: 1
	// worker, lowest ping p99 (1.15 ms, Loop p99 3.20 ms), from the
	// rows"); Figures a second line where the search's figures go ("" when
	// none).
	Line, Figures string
	// Fit is the search's model ("fit: USL N* 2.89, R^2 0.98") and
	// Verdict what it says ("throughput peaks near 2.9 workers and falls
	// after (a good fit)"); "" when the pick is not the search's.
	Fit, Verdict string
}

// PickFor is s's pick for t (For(s.Sizes, s.Scenario, MinHeld) or its
// Keep): the search's when one finished on t's scenario (named by the
// figure it ranked by, s.Search.Headline, else t's headline), else the
// best row, else the CPU rule's starting point (s.SuggestedWorkers).
func PickFor(s session.Snapshot, t Table) Pick {
	q := s.Search
	if q.Fit != nil && q.Scenario == t.Scenario && !q.Canceled && !q.Running {
		h := t.Spec
		if q.Headline != "" {
			h = workload.HeadlineNamed(q.Headline)
		}
		return searchPick(q, h)
	}
	if t.Best >= 0 {
		r := t.Rows[t.Best]
		p := Pick{Workers: r.Workers, From: FromRows}
		loop := ""
		if !t.Spec.FromProbe && r.ProbeP99MS != nil {
			loop = ", Loop p99 " + Figure(*r.ProbeP99MS) + " ms"
		}
		busy := "" // first, so a narrow screen cuts the figures, not the doubt
		if r.MachineBusy {
			busy = " (uncertain: all rows busy)"
		}
		tie := ""
		if i := t.TiedWith(); i >= 0 {
			o := t.Rows[i]
			tie = fmt.Sprintf("; %s read %s, within %g%%: fewer workers", rowName(o), Figure(*o.HeadlineP99MS), 100*workload.TieWithin)
		}
		p.Line = fmt.Sprintf("pick: %s%s, %s (%s %s%s%s)", rowName(r), busy, t.Spec.Rule(),
			Figure(*r.HeadlineP99MS), t.Spec.Unit, loop, tie)
		return p
	}
	var keys []string // the keys that work on s's program
	if s.Takes(session.SetWorkers) {
		keys = append(keys, "0-9 tries a size")
	}
	if s.Takes(session.AutoSize) {
		keys = append(keys, "a searches")
	}
	line := fmt.Sprintf("pick: none yet; start at %s by the CPU rule (%s)", SizeName(s.SuggestedWorkers), s.SuggestedRule)
	if s.SuggestedRule == "" {
		line = "pick: none yet"
	}
	if len(keys) > 0 {
		line += "; " + strings.Join(keys, ", ")
	}
	return Pick{Workers: -1, From: FromCPU, Line: line}
}

// rowName is a row's size in words, as the pick names it: SizeName, or
// "2 priority workers" for a row of priority workers, so the pick says
// which of two rows of one size it is.
func rowName(r session.SizeJSON) string {
	if !r.Priority {
		return SizeName(r.Workers)
	}
	return strings.Replace(SizeName(r.Workers), "worker", "priority worker", 1)
}

// searchPick is the finished search's answer, or why it has none.
func searchPick(q session.Search, h workload.HeadlineSpec) Pick {
	f := q.Fit
	p := Pick{Workers: -1, From: FromSearch, Fit: FitLine(*f), Verdict: verdict(*f)}
	pick, figures := f.Short(h)
	switch {
	case q.Uncertain != "":
		p.Line = "pick: none, the search is uncertain: " + q.Uncertain
	case f.Recommended < 0:
		p.Line = "pick: none: " + strings.TrimPrefix(pick, "auto: ")
	default:
		p.Workers = f.Recommended
		p.Line = strings.Replace(pick, "auto R: ", "pick: ", 1) + ", from the search"
		p.Figures = figures
	}
	return p
}

// FitLine is the search's model in short: "fit: USL N* 2.89, R^2 0.98",
// "fit: USL no peak, R^2 0.91", or "fit: none" when it failed.
func FitLine(f sizing.Fit) string {
	if f.R2 == nil {
		return "fit: none"
	}
	peak := "no peak"
	if f.NPeak != nil {
		peak = fmt.Sprintf("N* %.3g", *f.NPeak)
	}
	return fmt.Sprintf("fit: USL %s, R^2 %.2f", peak, *f.R2)
}

// verdict is the fit's verdict without the R^2 FitLine gives ("throughput
// peaks near 2.9 workers and falls after (a good fit)"), or why there is
// no fit.
func verdict(f sizing.Fit) string {
	if f.R2 == nil {
		return f.Verdict
	}
	return strings.Replace(f.Verdict, fmt.Sprintf("(R^2 %.2f, ", *f.R2), "(", 1)
}

// WithBest is t with the row of workers marked best (the first such row;
// none, -1, when workers is negative or has no row): the mark follows the
// pick when the pick is the search's.
func (t Table) WithBest(workers int) Table {
	t.Best = -1
	for i, r := range t.Rows {
		if workers >= 0 && r.Workers == workers {
			t.Best = i
			break
		}
	}
	return t
}
