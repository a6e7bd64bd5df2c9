// Package fit turns throughput measured at several pool sizes into a model
// and a size to pick: the Universal Scalability Law for closed loops and
// batches, Little's law for open-loop arrivals.
//
// The USL (N. J. Gunther, "Guerrilla Capacity Planning", Springer 2007,
// ch. 4; and "A General Theory of Computational Scalability Based on
// Rational Functions", arXiv:0808.1431) models the throughput of N workers
// as
//
//	X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1))
//
// with lambda the throughput of one worker (per second), sigma the
// contention (the serial share, 0..1) and kappa the coherency cost (the
// pairwise crosstalk, >= 0). With kappa > 0 throughput peaks at
// N* = sqrt((1 - sigma) / kappa) and falls after it.
package fit

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"gonum.org/v1/gonum/optimize"
)

// Point is one measurement: throughput X (per second, > 0) at N workers
// (N >= 1).
type Point struct {
	N float64
	X float64
}

// USL is a fitted Universal Scalability Law. Lambda is per second (the
// unit of the points' X); Sigma and Kappa have no unit. R2 is the
// coefficient of determination of the fit on X (1 is a perfect fit; it can
// be negative for a model worse than the mean). MinN and MaxN are the
// smallest and largest sizes fitted.
type USL struct {
	Lambda, Sigma, Kappa float64
	R2                   float64
	MinN, MaxN           float64
}

// MinPoints is the fewest distinct sizes FitUSL accepts: three parameters
// need at least one more point than they have to say anything of the fit.
const MinPoints = 4

// Errors of FitUSL.
var (
	ErrTooFew   = errors.New("too few sizes to fit")
	ErrBadPoint = errors.New("bad point")
)

// Throughput is X(n) of the model, per second.
func (u USL) Throughput(n float64) float64 {
	return u.Lambda * n / (1 + u.Sigma*(n-1) + u.Kappa*n*(n-1))
}

// Peak is N* = sqrt((1 - sigma) / kappa), the size of highest modelled
// throughput. ok is false when the model has no peak (kappa is 0 or sigma
// at least 1, to within 1e-9): throughput then only rises, or only
// flattens.
func (u USL) Peak() (n float64, ok bool) {
	if u.Kappa <= negligible || u.Sigma >= 1-negligible {
		return 0, false
	}
	return math.Sqrt((1 - u.Sigma) / u.Kappa), true
}

// negligible is where sigma's distance from 1, or kappa, counts as none: a
// fit's floating point leaves 1e-17 where the model has no term (N* would
// read 3e8 workers, or 4e-8).
const negligible = 1e-9

// PeakWithin is Peak when it falls within the sizes fitted (MinN..MaxN):
// a peak outside them is an extrapolation the data do not show, so ok is
// false then too ("no peak within the sizes tried").
func (u USL) PeakWithin() (n float64, ok bool) {
	n, ok = u.Peak()
	if !ok || n < u.MinN || n > u.MaxN {
		return n, false
	}
	return n, true
}

// Knee is the size to pick for a throughput-bound workload: the smallest
// whole size within MinN..MaxN after which one more worker adds less than
// a quarter of what one worker alone does (X(N+1) - X(N) < lambda/4), or
// the peak where that comes first. The quarter is this project's choice: a
// worker that returns under 25% of itself costs a core for little.
func (u USL) Knee() int {
	lo, hi := int(math.Ceil(u.MinN)), int(math.Floor(u.MaxN))
	for n := lo; n < hi; n++ {
		if u.Throughput(float64(n+1))-u.Throughput(float64(n)) < u.Lambda/4 {
			return n
		}
	}
	return hi
}

// Verdict says in one line what the fit means: where throughput peaks, or
// that it does not within the sizes tried, and how well the model fits.
func (u USL) Verdict() string {
	fitWord := "a good fit"
	switch {
	case u.R2 < 0.8:
		fitWord = "a poor fit: read the table, not the model"
	case u.R2 < 0.95:
		fitWord = "a rough fit"
	}
	if n, ok := u.PeakWithin(); ok {
		return fmt.Sprintf("throughput peaks near %.1f workers and falls after (R^2 %.2f, %s)", n, u.R2, fitWord)
	}
	if u.Sigma > 0.5 {
		return fmt.Sprintf("no peak within the sizes tried; mostly serial (sigma %.2f): more workers add little (R^2 %.2f, %s)", u.Sigma, u.R2, fitWord)
	}
	return fmt.Sprintf("no peak within the sizes tried: throughput still rises at %g workers (R^2 %.2f, %s)", u.MaxN, u.R2, fitWord)
}

// FitUSL fits the USL to points by least squares on the relative error of
// X (so a slow size weighs as much as a fast one), with lambda > 0 and
// sigma within 0..1 and kappa >= 0. Points at the same N are kept as repeats. It needs
// MinPoints distinct sizes (ErrTooFew) and every N >= 1 and X > 0, finite
// (ErrBadPoint).
func FitUSL(points []Point) (USL, error) {
	sizes := map[float64]bool{}
	for _, p := range points {
		if !(p.N >= 1) || !(p.X > 0) || math.IsInf(p.N, 0) || math.IsInf(p.X, 0) {
			return USL{}, fmt.Errorf("%w: N %v, X %v (need N >= 1, X > 0)", ErrBadPoint, p.N, p.X)
		}
		sizes[p.N] = true
	}
	if len(sizes) < MinPoints {
		return USL{}, fmt.Errorf("%w: %d sizes, need at least %d", ErrTooFew, len(sizes), MinPoints)
	}
	pts := append([]Point(nil), points...)
	sort.Slice(pts, func(i, j int) bool { return pts[i].N < pts[j].N })

	// The objective over x = (log lambda, asin sqrt sigma, sqrt kappa):
	// sigma = sin^2 stays within 0..1 (a serial share) and kappa = x^2 >= 0
	// without a constrained method.
	model := func(x []float64) USL {
		s := math.Sin(x[1])
		return USL{Lambda: math.Exp(x[0]), Sigma: s * s, Kappa: x[2] * x[2]}
	}
	cost := func(x []float64) float64 {
		u := model(x)
		var s float64
		for _, p := range pts {
			r := (u.Throughput(p.N) - p.X) / p.X
			s += r * r
		}
		return s
	}
	best := USL{}
	bestCost := math.Inf(1)
	for _, start := range starts(pts) {
		res, err := optimize.Minimize(optimize.Problem{Func: cost}, start,
			&optimize.Settings{FuncEvaluations: 20000, Converger: &optimize.FunctionConverge{Absolute: 1e-14, Relative: 1e-12, Iterations: 200}},
			&optimize.NelderMead{})
		if err != nil && res == nil {
			continue
		}
		if res.F < bestCost {
			bestCost, best = res.F, model(res.X)
		}
	}
	if math.IsInf(bestCost, 1) {
		return USL{}, errors.New("the fit did not converge")
	}
	best.MinN, best.MaxN = pts[0].N, pts[len(pts)-1].N
	best.R2 = r2(best, pts)
	return best, nil
}

// starts are the fit's starting points: Gunther's linearisation (with
// lambda from the smallest size, N/C(N) - 1 = sigma (N-1) + kappa N (N-1)
// is linear in sigma and kappa, solved by least squares), and a few
// spread guesses so one bad point cannot trap the simplex.
func starts(pts []Point) [][]float64 {
	n0, x0 := pts[0].N, pts[0].X
	lambda := x0 / n0
	// Normal equations of y = sigma a + kappa b, a = N-1, b = N(N-1).
	var saa, sab, sbb, say, sby float64
	for _, p := range pts {
		c := p.X / lambda
		y := p.N/c - 1
		a, b := p.N-1, p.N*(p.N-1)
		saa, sab, sbb, say, sby = saa+a*a, sab+a*b, sbb+b*b, say+a*y, sby+b*y
	}
	sigma, kappa := 0.0, 0.0
	if det := saa*sbb - sab*sab; det != 0 {
		sigma = (say*sbb - sby*sab) / det
		kappa = (saa*sby - sab*say) / det
	}
	sigma, kappa = min(max(sigma, 0), 1), max(kappa, 0)
	asin := func(v float64) float64 { return math.Asin(math.Sqrt(v)) }
	out := [][]float64{{math.Log(lambda), asin(sigma), math.Sqrt(kappa)}}
	for _, g := range [][2]float64{{0.01, 0.0001}, {0.1, 0.01}, {0.5, 0.05}, {0.02, 0.1}} {
		out = append(out, []float64{math.Log(lambda), asin(g[0]), math.Sqrt(g[1])})
	}
	return out
}

// r2 is 1 - SS_res / SS_tot over X.
func r2(u USL, pts []Point) float64 {
	var mean float64
	for _, p := range pts {
		mean += p.X
	}
	mean /= float64(len(pts))
	var res, tot float64
	for _, p := range pts {
		d := u.Throughput(p.N) - p.X
		res += d * d
		e := p.X - mean
		tot += e * e
	}
	if tot == 0 {
		if res == 0 {
			return 1
		}
		return 0
	}
	return 1 - res/tot
}

// LittleWorkers is the concurrency an open-loop arrival rate needs by
// Little's law (J. D. C. Little, "A Proof for the Queuing Formula
// L = lambda W", Operations Research 9(3), 1961): L = rate x service time,
// rounded up, at least 1. rate is arrivals per second; service the mean
// time one task holds a worker. It returns 0 when either is unknown
// (not > 0).
func LittleWorkers(rate float64, service time.Duration) int {
	if !(rate > 0) || service <= 0 || math.IsInf(rate, 0) {
		return 0
	}
	l := rate * service.Seconds()
	// 1e-9 of slack: 160/s x 0.05 s is 8.000000000000002 in floating point.
	return max(int(math.Ceil(l-1e-9)), 1)
}
