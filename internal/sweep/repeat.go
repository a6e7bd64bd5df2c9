package sweep

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/offtop/offtop/internal/decimal"
	"github.com/offtop/offtop/internal/sizing"
)

// Repeats: the default and the most a sweep runs each size.
const (
	// DefaultRepeat is 3, the fewest runs whose median outvotes one odd
	// run, and the fewest that give a spread beside it.
	DefaultRepeat = 3
	MaxRepeat     = 100
)

// ErrRepeat is returned by ParseRepeat for a bad count.
var ErrRepeat = fmt.Errorf("bad repeat count")

// ParseRepeat reads a --repeat value: a whole number 1..MaxRepeat.
func ParseRepeat(s string) (int, error) {
	n, err := decimal.Int(s)
	switch {
	case errors.Is(err, decimal.ErrRange) || (err == nil && (n < 1 || n > MaxRepeat)):
		return 0, fmt.Errorf("%w: outside 1..%d", ErrRepeat, MaxRepeat)
	case err != nil:
		return 0, fmt.Errorf("%w: not a whole number", ErrRepeat)
	}
	return n, nil
}

// Schedule is the order a sweep runs its sizes in, as indices into them:
// every size once, then every size again, k times (1,2,4,1,2,4,...), so a
// drift of the machine (a neighbour starting, a CPU warming) lands on
// every size alike instead of on the last ones.
func Schedule(sizes, k int) []int {
	out := make([]int, 0, sizes*k)
	for range k {
		for i := range sizes {
			out = append(out, i)
		}
	}
	return out
}

// Range is a figure over a row's runs.
type Range struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// figure is one figure of a Row: how to read it from a run and write a
// value into a row (NaN writes "no data").
type figure struct {
	key string
	get func(Row) float64
	set func(*Row, float64)
}

// opt reads a figure that may be missing as NaN.
func opt(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// figures are every figure of rows with these extra keys.
func figures(extra []string) []figure {
	fs := []figure{
		{"throughput_per_s", func(r Row) float64 { return r.ThroughputPerS }, func(r *Row, v float64) { r.ThroughputPerS, r.Size.ThroughputPerS = v, v }},
		{"cpu_seconds", func(r Row) float64 { return r.CPUSeconds }, func(r *Row, v float64) { r.CPUSeconds = v }},
		{"cpu_per_wall", func(r Row) float64 { return opt(r.Size.CPUPerWall) }, func(r *Row, v float64) {
			r.Size.CPUPerWall = ptr(v)
			r.CPUPerWall = ptr(v) // null when no run knew it (an attached program's idle size)
		}},
		{"held_s", func(r Row) float64 { return r.Size.HeldS }, func(r *Row, v float64) { r.Size.HeldS = v }},
		{"probe_p99_ms", func(r Row) float64 { return opt(r.Size.ProbeP99MS) }, func(r *Row, v float64) { r.Size.ProbeP99MS, r.ProbeP99MS = ptr(v), ptr(v) }},
		{"probe_max_ms", func(r Row) float64 { return opt(r.Size.ProbeMaxMS) }, func(r *Row, v float64) { r.Size.ProbeMaxMS = ptr(v) }},
		{"headline_p99_ms", func(r Row) float64 { return opt(r.Size.HeadlineP99MS) }, func(r *Row, v float64) { r.Size.HeadlineP99MS = ptr(v) }},
		{"task_p99_ms", func(r Row) float64 { return opt(r.TaskP99MS) }, func(r *Row, v float64) { r.TaskP99MS = ptr(v) }},
		{"rss_mb", func(r Row) float64 { return opt(r.RSSMB) }, func(r *Row, v float64) { r.RSSMB = ptr(v) }},
		{"arrival_per_s", func(r Row) float64 { return r.ArrivalPerS }, func(r *Row, v float64) { r.ArrivalPerS = zeroNaN(v) }},
		{"service_ms", func(r Row) float64 { return opt(r.ServiceMS) }, func(r *Row, v float64) { r.ServiceMS = ptr(v) }},
	}
	for _, k := range extra {
		fs = append(fs, figure{"extra." + k, func(r Row) float64 { return opt(r.Extra[k]) }, func(r *Row, v float64) { r.Extra[k] = ptr(v) }})
	}
	return fs
}

func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// flaggedKeys are the figures whose spread flags a row: the fitted one
// (throughput) and the one the best size is judged by (the headline).
var flaggedKeys = map[string]string{"throughput_per_s": "tasks/s", "headline_p99_ms": "headline p99"}

// combine makes one row of a size's runs: every figure the median over
// the runs that have it, its min and max in Spread (and in the rows lo
// and hi the table prints), Flags naming the figures whose spread exceeds
// sizing.MaxSpread. Counts are the medians too; the answer is ok when
// every run's was; balanced when every run was; busy (machine_busy) when
// more than half the runs were.
func combine(runs []Row, extra []string) Row {
	med := cloneRow(runs[0])
	lo, hi := cloneRow(runs[0]), cloneRow(runs[0])
	med.Repeats = len(runs)
	med.Spread = map[string]Range{}
	for _, f := range figures(extra) {
		var v []float64
		for _, r := range runs {
			if x := f.get(r); !math.IsNaN(x) {
				v = append(v, x)
			}
		}
		m, a, b := sizing.Median(v), math.NaN(), math.NaN()
		if len(v) > 0 {
			a, b = slices.Min(v), slices.Max(v)
			med.Spread[f.key] = Range{Median: m, Min: a, Max: b}
		}
		f.set(&med, m)
		f.set(&lo, a)
		f.set(&hi, b)
		if name, ok := flaggedKeys[f.key]; ok && len(v) > 1 && sizing.Flagged(m, a, b) {
			med.Flags = append(med.Flags, fmt.Sprintf("%s %.0f%%", name, 100*sizing.Spread(m, a, b)))
		}
	}
	counts := func(get func(Row) int64) int64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = float64(get(r))
		}
		return int64(math.Round(sizing.Median(v)))
	}
	med.Size.ProbeCount = counts(func(r Row) int64 { return r.Size.ProbeCount })
	med.Size.HeadlineCount = counts(func(r Row) int64 { return r.Size.HeadlineCount })
	med.AnswerOK = nil
	for _, r := range runs {
		med.Balanced = med.Balanced && r.Balanced
		if r.AnswerOK != nil {
			ok := *r.AnswerOK && (med.AnswerOK == nil || *med.AnswerOK)
			med.AnswerOK = &ok
		}
	}
	med.Size.AnswerOK = med.AnswerOK
	busy := 0
	for _, r := range runs {
		if r.Size.MachineBusy {
			busy++
		}
	}
	med.Size.MachineBusy = 2*busy > len(runs) // as the median runs were (sizing's medians)
	if len(runs) > 1 {
		med.lo, med.hi = &lo, &hi
	}
	return med
}

// cloneRow copies r deep enough that setting figures leaves r alone.
func cloneRow(r Row) Row {
	c := r
	c.Extra = make(map[string]*float64, len(r.Extra))
	for k, v := range r.Extra {
		c.Extra[k] = v
	}
	return c
}

// obs is a run as sizing reads it.
func (r Row) obs() sizing.Obs {
	return sizing.Obs{Workers: r.Workers, ThroughputPerS: r.ThroughputPerS,
		HeadlineP99MS: opt(r.Size.HeadlineP99MS), LoopP99MS: opt(r.Size.ProbeP99MS),
		ArrivalPerS: r.ArrivalPerS, ServiceMS: opt(r.ServiceMS), Busy: r.Size.MachineBusy}
}

// spanned is a cell with its runs' range: "412 (398-420)" when the runs
// differ in it, the median alone when they do not (or it has no runs).
func spanned(med, lo, hi string) string {
	if lo == hi || lo == "" {
		return med
	}
	return med + " (" + lo + "-" + hi + ")"
}

// rangeCell formats figure f of row i of r with its range.
func rangeCell(row Row, cell func(Row) *float64) string {
	med := num(cell(row))
	if row.lo == nil {
		return med
	}
	return spanned(med, num(cell(*row.lo)), num(cell(*row.hi)))
}

// flagCell is the row's flag: the figures whose runs spread over 10%.
func flagCell(row Row) string {
	if len(row.Flags) == 0 {
		return ""
	}
	s := "! spread"
	for _, f := range row.Flags {
		s += " " + f
	}
	return s
}
