// Package sizing picks the pool size to run a scenario at from what was
// measured at several sizes: the Universal Scalability Law fitted to
// throughput (internal/fit), and the scenario's own rule
// (workload.SizingSpec): the USL knee for throughput-bound work, the
// lowest headline p99 with a responsive Loop for servers, Little's law for
// open-loop I/O. The sweep (--fit) and the dashboard's search (the a key)
// both call Recommend, so both pick the same way.
package sizing

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/offtop/offtop/internal/fit"
	"github.com/offtop/offtop/internal/workload"
)

// Obs is one measured run at one pool size. NaN marks a figure with no
// data (a headline never observed, no pool task done).
type Obs struct {
	Workers int
	// ThroughputPerS is pool tasks completed per second of the run.
	ThroughputPerS float64
	// HeadlineP99MS and LoopP99MS are the scenario's headline p99 and the
	// Loop probe's corrected p99 over the run, in ms.
	HeadlineP99MS, LoopP99MS float64
	// ArrivalPerS is tasks submitted per second over the run; ServiceMS
	// the mean time a task held a worker (mean busy workers over
	// throughput), in ms.
	ArrivalPerS, ServiceMS float64
	// Busy says the run was held while other work took over
	// sysinfo.BusyShare of the CPUs: the latency rule does not pick such
	// a size while a size held clean passes.
	Busy bool
}

// Fit is the USL fitted to a set of runs and the size picked, as it
// leaves offtop (the sweep's JSON field fit). Figures a rule did not use
// are null.
type Fit struct {
	// Points is the runs fitted (sizes >= 1 with throughput), Sizes their
	// distinct sizes.
	Points int   `json:"points"`
	Sizes  []int `json:"sizes"`
	// Lambda (per second), Sigma, Kappa: the USL's parameters; NPeak is
	// N* = sqrt((1 - sigma)/kappa), null when the model has no peak;
	// PeakWithin says it lies within the sizes fitted. Null when the fit
	// failed (FitError says why).
	Lambda     *float64 `json:"lambda"`
	Sigma      *float64 `json:"sigma"`
	Kappa      *float64 `json:"kappa"`
	NPeak      *float64 `json:"n_peak"`
	PeakWithin bool     `json:"peak_within"`
	R2         *float64 `json:"r2"`
	Verdict    string   `json:"verdict"`
	FitError   string   `json:"fit_error,omitempty"`
	// Rule is the scenario's rule (knee, latency, little); Recommended the
	// size picked (-1: none could be); Line the size and its rule in one
	// line, as the table prints it.
	Rule        string `json:"rule"`
	Recommended int    `json:"recommended"`
	Line        string `json:"line"`
	// KneeFrom says where the knee rule read its knee: "model" (the fit),
	// or "table" (the measured medians, when the fit is poor: R^2 under
	// PoorR2).
	KneeFrom string `json:"knee_from,omitempty"`
	// LoopBoundMS is the Loop p99 bound of the latency rule;
	// HeadlineP99MS and LoopP99MS the size picked's figures (medians of
	// its runs) when it picked.
	LoopBoundMS   *float64 `json:"loop_p99_bound_ms,omitempty"`
	HeadlineP99MS *float64 `json:"headline_p99_ms,omitempty"`
	LoopP99MS     *float64 `json:"loop_p99_ms,omitempty"`
	// ArrivalPerS, ServiceMS and LittleL are the little rule's measured
	// arrival rate, service time (medians over the runs) and L = their
	// product, the mean busy workers the rate needs.
	ArrivalPerS *float64 `json:"arrival_per_s,omitempty"`
	ServiceMS   *float64 `json:"service_ms,omitempty"`
	LittleL     *float64 `json:"little_l,omitempty"`

	// usl is the model while Recommend picks (not in JSON: a decoded Fit
	// has the figures above only).
	usl *fit.USL
}

// ModelLine is the fit in one line: "USL over 12 runs at 1,2,3,4 workers:
// lambda 16.1/s, sigma 0.021, kappa 0.112, N* 2.89, R^2 0.98", or why
// there is none.
func (f Fit) ModelLine() string {
	if f.Lambda == nil || f.Sigma == nil || f.Kappa == nil || f.R2 == nil {
		return "USL: no fit: " + f.FitError
	}
	peak := "none"
	if f.NPeak != nil {
		peak = fmt.Sprintf("%.3g", *f.NPeak)
		if !f.PeakWithin {
			peak += " (outside the sizes tried)"
		}
	}
	return fmt.Sprintf("USL over %d runs at %s workers: lambda %.3g/s, sigma %.3g, kappa %.3g, N* %s, R^2 %.3f",
		f.Points, joinInts(f.Sizes), *f.Lambda, *f.Sigma, *f.Kappa, peak, *f.R2)
}

// FitSizes is how many distinct sizes of 1 or more obs has: the USL
// needs fit.MinPoints of them.
func FitSizes(obs []Obs) int {
	seen := map[int]bool{}
	for _, o := range obs {
		if o.Workers >= 1 {
			seen[o.Workers] = true
		}
	}
	return len(seen)
}

// Recommend fits the USL to the throughput of obs at sizes >= 1 and picks
// a size by rule (a scenario's: workload.SizingSpec). Repeated runs of a size
// are all fitted; the latency and little rules read the median of each
// size's runs. It never fails: a rule that cannot pick says why in Line,
// with Recommended -1.
func Recommend(rule workload.SizeRule, obs []Obs) Fit {
	f := Fit{Rule: rule.String(), Recommended: -1}
	var pts []fit.Point
	for _, o := range obs {
		if o.Workers >= 1 && o.ThroughputPerS > 0 {
			pts = append(pts, fit.Point{N: float64(o.Workers), X: o.ThroughputPerS})
			if !slices.Contains(f.Sizes, o.Workers) {
				f.Sizes = append(f.Sizes, o.Workers)
			}
		}
	}
	slices.Sort(f.Sizes)
	f.Points = len(pts)
	if u, err := fit.FitUSL(pts); err != nil {
		f.FitError = err.Error()
		all := FitSizes(obs)
		switch {
		case errors.Is(err, fit.ErrTooFew) && len(f.Sizes) < all:
			f.FitError = fmt.Sprintf("%d of the %d sizes of 1 or more completed pool tasks, need %d", len(f.Sizes), all, fit.MinPoints)
		case errors.Is(err, fit.ErrTooFew) && slices.ContainsFunc(obs, func(o Obs) bool { return o.Workers == 0 }):
			f.FitError = fmt.Sprintf("%s: %d sizes of 1 or more workers, need %d (inline is not fitted: it runs no pool)", fit.ErrTooFew, all, fit.MinPoints)
		}
		f.Verdict = "no fit: " + f.FitError
	} else {
		f.usl = &u
		f.Lambda, f.Sigma, f.Kappa, f.R2 = num(u.Lambda), num(u.Sigma), num(u.Kappa), num(u.R2)
		if n, ok := u.Peak(); ok {
			f.NPeak = num(n)
		}
		_, f.PeakWithin = u.PeakWithin()
		f.Verdict = u.Verdict()
		if lo, hi, ok := flat(medians(obs)); ok {
			f.NPeak, f.PeakWithin = nil, false
			f.Verdict = fmt.Sprintf("throughput flat at every size (%.3g-%.3g tasks/s, within %.0f%%): more workers add none; "+
				"a fixed-rate (open-loop) load, or serial work, shows this; no peak to read (R^2 %.2f)", lo, hi, 100*(FlatWithin-1), u.R2)
		}
	}
	switch rule {
	case workload.RuleLatency:
		f.latency(medians(obs))
	case workload.RuleLittle:
		f.little(obs)
	default:
		f.knee(medians(obs))
	}
	return f
}

func (f *Fit) knee(rows []Obs) {
	const rule = "the USL knee (one more worker adds under lambda/4)"
	if f.usl != nil && f.usl.R2 >= PoorR2 {
		f.Recommended, f.KneeFrom = f.usl.Knee(), "model"
		f.Line = fmt.Sprintf("recommended: %s: %s", SizeName(f.Recommended), rule)
		return
	}
	why := "no fit"
	if f.usl != nil {
		why = fmt.Sprintf("a poor fit, R^2 %.2f", f.usl.R2)
	}
	if n, ok := measuredKnee(rows); ok {
		f.Recommended, f.KneeFrom = n, "table"
		f.Line = fmt.Sprintf("recommended: %s: the knee of the measured medians (%s: one more worker adds under a quarter of the first size's throughput per worker)", SizeName(n), why)
		return
	}
	f.Line = "recommended: none: " + rule + " needs a fit or two sizes: " + why
}

// FlatWithin is the ratio of the highest to the lowest median
// throughput (sizes >= 1) under which Recommend calls throughput flat:
// 1.05. Under a fixed 40/s load a sweep here read 39.7-40.2 tasks/s over
// 1-4 workers (1.3%); a size that adds under 5% gives no peak to read.
const FlatWithin = 1.05

// flat reports whether the medians' throughput at sizes >= 1 (two or
// more) is within FlatWithin, with its least and greatest.
func flat(rows []Obs) (lo, hi float64, ok bool) {
	n := 0
	for _, o := range rows {
		if o.Workers < 1 || !(o.ThroughputPerS > 0) {
			continue
		}
		if n == 0 || o.ThroughputPerS < lo {
			lo = o.ThroughputPerS
		}
		hi = max(hi, o.ThroughputPerS)
		n++
	}
	return lo, hi, n >= 2 && hi <= lo*FlatWithin
}

// PoorR2 is the R^2 under which the knee is read from the measured
// medians rather than from the model: 0.8, where Verdict calls the fit
// poor.
const PoorR2 = 0.8

// measuredKnee is the knee of the measured medians (sizes >= 1, with
// throughput): the first size after which the next adds, per worker
// added, less than a quarter of the smallest size's throughput per worker.
func measuredKnee(rows []Obs) (int, bool) {
	var r []Obs
	for _, o := range rows {
		if o.Workers >= 1 && o.ThroughputPerS > 0 {
			r = append(r, o)
		}
	}
	if len(r) == 0 {
		return 0, false
	}
	per := r[0].ThroughputPerS / float64(r[0].Workers)
	for i := 0; i+1 < len(r); i++ {
		gain := (r[i+1].ThroughputPerS - r[i].ThroughputPerS) / float64(r[i+1].Workers-r[i].Workers)
		if gain < per/4 {
			return r[i].Workers, true
		}
	}
	return r[len(r)-1].Workers, true
}

// latency picks the lowest headline p99 among sizes whose Loop p99 is
// within the bound, a size held busy only while no size held clean is
// within it; a tie goes to fewer workers.
func (f *Fit) latency(rows []Obs) {
	bound := workload.LoopP99BoundMS
	f.LoopBoundMS = num(bound)
	rule := fmt.Sprintf("lowest headline p99 (within %g%%: fewest workers) with the Loop's p99 under %g ms", 100*workload.TieWithin, bound)
	within := func(r Obs) bool { return !math.IsNaN(r.HeadlineP99MS) && r.LoopP99MS <= bound }
	clean := slices.ContainsFunc(rows, func(r Obs) bool { return within(r) && !r.Busy })
	best := -1
	for i, r := range rows {
		if !within(r) || clean && r.Busy {
			continue
		}
		if best < 0 || r.HeadlineP99MS < rows[best].HeadlineP99MS {
			best = i
		}
	}
	if best < 0 {
		f.Line = "recommended: none: " + noneWithin(rows, bound)
		return
	}
	// Of the sizes tied with the lowest (workload.Tied), the fewest workers.
	low := rows[best].HeadlineP99MS
	for i, r := range rows {
		if within(r) && (!clean || !r.Busy) && workload.Tied(r.HeadlineP99MS, low) && r.Workers < rows[best].Workers {
			best = i
		}
	}
	r := rows[best]
	f.Recommended, f.HeadlineP99MS, f.LoopP99MS = r.Workers, num(r.HeadlineP99MS), num(r.LoopP99MS)
	f.Line = fmt.Sprintf("recommended: %s: %s (p99 %.3g ms, Loop p99 %.3g ms)", SizeName(r.Workers), rule, r.HeadlineP99MS, r.LoopP99MS)
}

// noneWithin says why no row passed the latency rule: no row had a
// headline figure, or the lowest Loop p99 among those that had one (a
// busy machine raises every row's).
func noneWithin(rows []Obs, bound float64) string {
	low := -1
	for i, r := range rows {
		if math.IsNaN(r.HeadlineP99MS) || math.IsNaN(r.LoopP99MS) {
			continue
		}
		if low < 0 || r.LoopP99MS < rows[low].LoopP99MS {
			low = i
		}
	}
	if low < 0 {
		return "no size measured a headline p99 and a Loop p99"
	}
	return fmt.Sprintf("the Loop's p99 was over %g ms at every size (lowest %.3g ms, at %s)", bound, rows[low].LoopP99MS, SizeName(rows[low].Workers))
}

// little reads Little's law from the median arrival rate and service time
// over every run (each run measures both, whatever its size).
func (f *Fit) little(obs []Obs) {
	var rates, svc []float64
	for _, o := range obs {
		if o.ArrivalPerS > 0 {
			rates = append(rates, o.ArrivalPerS)
		}
		if o.ServiceMS > 0 {
			svc = append(svc, o.ServiceMS)
		}
	}
	rate, ms := Median(rates), Median(svc)
	n := fit.LittleWorkers(rate, time.Duration(ms*float64(time.Millisecond)))
	if n == 0 {
		f.Line = "recommended: none: Little's law needs a measured arrival rate and service time"
		return
	}
	f.ArrivalPerS, f.ServiceMS, f.LittleL = num(rate), num(ms), num(rate*ms/1000)
	f.Recommended = n
	f.Line = fmt.Sprintf("recommended: %s: Little's law, L = %.3g arrivals/s x %.3g ms = %.3g busy workers, so at least %d",
		SizeName(n), rate, ms, rate*ms/1000, n)
}

// medians is one Obs per size, ascending, each figure the median of that
// size's runs.
func medians(obs []Obs) []Obs {
	by := map[int][]Obs{}
	for _, o := range obs {
		by[o.Workers] = append(by[o.Workers], o)
	}
	var out []Obs
	for w, os := range by {
		m := Obs{Workers: w}
		pick := func(get func(Obs) float64) float64 {
			var v []float64
			for _, o := range os {
				if x := get(o); !math.IsNaN(x) {
					v = append(v, x)
				}
			}
			return Median(v)
		}
		m.ThroughputPerS = pick(func(o Obs) float64 { return o.ThroughputPerS })
		m.HeadlineP99MS = pick(func(o Obs) float64 { return o.HeadlineP99MS })
		m.LoopP99MS = pick(func(o Obs) float64 { return o.LoopP99MS })
		m.ArrivalPerS = pick(func(o Obs) float64 { return o.ArrivalPerS })
		m.ServiceMS = pick(func(o Obs) float64 { return o.ServiceMS })
		busy := 0
		for _, o := range os {
			if o.Busy {
				busy++
			}
		}
		m.Busy = 2*busy > len(os) // as the median runs were
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Obs) int { return cmp.Compare(a.Workers, b.Workers) })
	return out
}

// Median is the median of v (the mean of the middle two for an even
// count); NaN for none. v is not modified.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// MaxSpread is the spread of a figure over repeated runs past which a
// sweep row is flagged: 10%.
const MaxSpread = 0.10

// Spread is (max - min) / median of a figure over runs, NaN when the
// median is 0 or unknown.
func Spread(median, lo, hi float64) float64 {
	if !(median > 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return math.NaN()
	}
	return (hi - lo) / median
}

// Flagged reports whether a figure's spread exceeds MaxSpread.
func Flagged(median, lo, hi float64) bool { return Spread(median, lo, hi) > MaxSpread }

func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// SizeName is a pool size in words: "inline", "1 worker", "4 workers".
func SizeName(n int) string {
	switch n {
	case 0:
		return "inline"
	case 1:
		return "1 worker"
	}
	return fmt.Sprintf("%d workers", n)
}

func joinInts(v []int) string {
	s := ""
	for i, n := range v {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(n)
	}
	return s
}

// Meter reads, over the samples of a run at one size, the two figures
// Little's law needs: the arrival rate and the mean busy workers. Its zero
// value is ready; it is not safe for concurrent use.
type Meter struct {
	t0, t1 time.Duration
	s0, s1 int64
	n      int
	busy   float64 // sum over samples of the busy workers
}

// Add takes one sample: elapsed since the session started, the pool's
// submitted count, and each worker's busy share (0..1) of the last
// interval.
func (m *Meter) Add(elapsed time.Duration, submitted int64, busy []float64) {
	if m.n == 0 {
		m.t0, m.s0 = elapsed, submitted
	}
	m.t1, m.s1 = elapsed, submitted
	m.n++
	for _, b := range busy {
		m.busy += b
	}
}

// ArrivalPerS is tasks submitted per second from the first sample to the
// last; 0 with fewer than two samples.
func (m *Meter) ArrivalPerS() float64 {
	dt := (m.t1 - m.t0).Seconds()
	if m.n < 2 || dt <= 0 {
		return 0
	}
	return float64(m.s1-m.s0) / dt
}

// ServiceMS is the mean time a task holds a worker, in ms: the mean busy
// workers over throughput (per second), by Little's law; NaN when either
// is unknown.
func (m *Meter) ServiceMS(throughput float64) float64 {
	if m.n == 0 || !(throughput > 0) || m.busy == 0 {
		return math.NaN()
	}
	return 1000 * m.busy / float64(m.n) / throughput
}

// Short is the size picked and its rule for the dashboard's sizes panel,
// in two lines: the pick ("auto R: 1 worker, lowest ping p99 with Loop
// p99 < 50 ms", "auto R: 9 workers by Little's law", "auto R: 2 workers by
// the USL knee (N* 3.04, R^2 0.93)"), then the figures it read, named and
// said to be the search's own ("during the search: ping p99 0.391 ms, Loop
// p99 0.255 ms"): the rows go on growing after it, its figures do not. h
// is the scenario's headline. figures is "" when no size could be picked.
func (f Fit) Short(h workload.HeadlineSpec) (pick, figures string) {
	if f.Recommended < 0 {
		return "auto: no size: " + strings.TrimPrefix(f.Line, "recommended: none: "), ""
	}
	n := SizeName(f.Recommended)
	switch f.Rule {
	case workload.RuleLatency.String():
		return fmt.Sprintf("auto R: %s, %s with Loop p99 < %g ms", n, h.Rule(), workload.LoopP99BoundMS),
			fmt.Sprintf("during the search: %s %.3g %s, Loop p99 %.3g ms", h.Label(), *f.HeadlineP99MS, h.Unit, *f.LoopP99MS)
	case workload.RuleLittle.String():
		return fmt.Sprintf("auto R: %s by Little's law (busy workers = arrivals x service)", n),
			fmt.Sprintf("during the search: %.3g/s x %.3g ms = %.3g busy", *f.ArrivalPerS, *f.ServiceMS, *f.LittleL)
	}
	r2 := ""
	if f.R2 != nil {
		r2 = fmt.Sprintf(", R^2 %.2f", *f.R2)
	}
	figures = "fitted to the search's throughput at " + joinInts(f.Sizes) + " workers"
	if f.KneeFrom == "table" {
		return fmt.Sprintf("auto R: %s by the measured knee (poor fit%s)", n, r2), figures
	}
	peak := "no peak"
	if f.NPeak != nil {
		peak = fmt.Sprintf("N* %.2f", *f.NPeak)
	}
	return fmt.Sprintf("auto R: %s by the USL knee (%s%s)", n, peak, r2), figures
}
