package fit

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// noisy returns X(N) of truth at sizes with a relative noise drawn
// uniformly from -amp..amp.
func noisy(truth USL, sizes []float64, amp float64, r *rand.Rand) []Point {
	out := make([]Point, len(sizes))
	for i, n := range sizes {
		out[i] = Point{N: n, X: truth.Throughput(n) * (1 + amp*(2*r.Float64()-1))}
	}
	return out
}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// TestFitRecoversKnownParameters: throughput from
// known (lambda, sigma, kappa) with 3% noise (uniform, +-3%) at 6 sizes
// gives back each parameter and N* within 10%. Whether one noise draw does
// depends on the draw, so the test draws 200 and asks at least 97% of them
// to recover all four (a fit that is off, or biased, fails far more), and
// the median of each within 3% (the fit recovers 198 or 199 of 200).
func TestFitRecoversKnownParameters(t *testing.T) {
	cases := []struct {
		name  string
		truth USL
		sizes []float64
	}{
		// N* = sqrt(0.8/0.01) = 8.9.
		{"contention and coherency", USL{Lambda: 1000, Sigma: 0.2, Kappa: 0.01}, []float64{1, 4, 8, 16, 32, 64}},
		// N* = sqrt(0.5/0.02) = 5: mostly serial, soon thrashing.
		{"mostly serial", USL{Lambda: 40, Sigma: 0.5, Kappa: 0.02}, []float64{1, 2, 4, 8, 16, 32}},
	}
	const draws = 200
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantPeak, _ := c.truth.Peak()
			good := 0
			var lambdas, sigmas, kappas []float64
			for seed := range uint64(draws) {
				r := rand.New(rand.NewPCG(seed, 7))
				u, err := FitUSL(noisy(c.truth, c.sizes, 0.03, r))
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				peak, ok := u.Peak()
				if ok && within(u.Lambda, c.truth.Lambda, 0.10) && within(u.Sigma, c.truth.Sigma, 0.10) &&
					within(u.Kappa, c.truth.Kappa, 0.10) && within(peak, wantPeak, 0.10) {
					good++
				} else {
					t.Logf("seed %d: fitted lambda %.4g sigma %.4g kappa %.4g N* %.3g", seed, u.Lambda, u.Sigma, u.Kappa, peak)
				}
				if u.R2 < 0.95 {
					t.Errorf("seed %d: R^2 %.3f for a 3%% noise fit", seed, u.R2)
				}
				lambdas, sigmas, kappas = append(lambdas, u.Lambda), append(sigmas, u.Sigma), append(kappas, u.Kappa)
			}
			if good < draws*97/100 {
				t.Errorf("%d of %d draws recovered every parameter within 10%%, want >= 97%%", good, draws)
			}
			for _, m := range []struct {
				name      string
				got, want float64
			}{{"lambda", median(lambdas), c.truth.Lambda}, {"sigma", median(sigmas), c.truth.Sigma}, {"kappa", median(kappas), c.truth.Kappa}} {
				if !within(m.got, m.want, 0.03) {
					t.Errorf("median %s %.4g, truth %.4g: biased", m.name, m.got, m.want)
				}
			}
		})
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// TestFitExact checks the fit itself without noise: to 1e-4.
func TestFitExact(t *testing.T) {
	truth := USL{Lambda: 200, Sigma: 0.05, Kappa: 0.002}
	u, err := FitUSL(noisy(truth, []float64{1, 2, 4, 8, 16, 32}, 0, rand.New(rand.NewPCG(1, 1))))
	if err != nil {
		t.Fatal(err)
	}
	if !within(u.Lambda, 200, 1e-4) || !within(u.Sigma, 0.05, 1e-3) || !within(u.Kappa, 0.002, 1e-3) || u.R2 < 0.99999 {
		t.Fatalf("got %+v", u)
	}
}

// TestLinearHasNoPeak: sigma = kappa = 0 is reported as no peak within the
// sizes tried, never as a number.
func TestLinearHasNoPeak(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for range 20 {
		u, err := FitUSL(noisy(USL{Lambda: 10}, []float64{1, 2, 3, 4, 5, 6}, 0.03, r))
		if err != nil {
			t.Fatal(err)
		}
		if n, ok := u.PeakWithin(); ok {
			t.Fatalf("linear data gave a peak at %.2f: %+v", n, u)
		}
		if v := u.Verdict(); !contains(v, "no peak within the sizes tried") {
			t.Fatalf("verdict %q", v)
		}
	}
}

// TestFlatAfterTwoCores is count on 2 CPUs: throughput doubles to 2
// workers, then stays flat. The knee is 2 and the peak lies near it.
func TestFlatAfterTwoCores(t *testing.T) {
	pts := []Point{{1, 10}, {2, 19.6}, {3, 19.8}, {4, 19.5}, {1, 10.2}, {2, 20.1}, {3, 19.4}, {4, 19.9}}
	u, err := FitUSL(pts)
	if err != nil {
		t.Fatal(err)
	}
	n, ok := u.PeakWithin()
	if !ok || n < 1.5 || n > 3.5 {
		t.Fatalf("peak %.2f ok %v, want 1.5..3.5: %+v", n, ok, u)
	}
	if k := u.Knee(); k != 2 {
		t.Fatalf("knee %d, want 2: %+v", k, u)
	}
}

func TestFitRefuses(t *testing.T) {
	for _, c := range []struct {
		pts  []Point
		want error
	}{
		{[]Point{{1, 1}, {2, 2}, {3, 3}}, ErrTooFew},
		{[]Point{{1, 1}, {1, 1}, {2, 2}, {2, 2}, {3, 3}}, ErrTooFew},
		{[]Point{{1, 1}, {2, 2}, {3, 3}, {4, 0}}, ErrBadPoint},
		{[]Point{{0, 1}, {2, 2}, {3, 3}, {4, 4}}, ErrBadPoint},
		{[]Point{{1, math.NaN()}, {2, 2}, {3, 3}, {4, 4}}, ErrBadPoint},
		{[]Point{{1, math.Inf(1)}, {2, 2}, {3, 3}, {4, 4}}, ErrBadPoint},
	} {
		if _, err := FitUSL(c.pts); !errors.Is(err, c.want) {
			t.Errorf("%v: err %v, want %v", c.pts, err, c.want)
		}
	}
}

// TestLittle: io's sweep load, 160 calls/s at 50 ms, needs 8.
func TestLittle(t *testing.T) {
	for _, c := range []struct {
		rate    float64
		service time.Duration
		want    int
	}{
		{160, 50 * time.Millisecond, 8},
		{161, 50 * time.Millisecond, 9},
		{1, time.Millisecond, 1},
		{0, time.Second, 0},
		{10, 0, 0},
		{math.NaN(), time.Second, 0},
	} {
		if got := LittleWorkers(c.rate, c.service); got != c.want {
			t.Errorf("LittleWorkers(%v, %v) = %d, want %d", c.rate, c.service, got, c.want)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestKnee: the knee is where one more worker adds under a quarter of one
// worker, before the peak.
func TestKnee(t *testing.T) {
	u := USL{Lambda: 1000, Sigma: 0.1, Kappa: 0.01, MinN: 1, MaxN: 16}
	// Gains 786, 595, 436, 308, then 208 < 250 from 5 to 6.
	if k := u.Knee(); k != 5 {
		t.Fatalf("knee %d, want 5", k)
	}
	lin := USL{Lambda: 10, MinN: 1, MaxN: 8}
	if k := lin.Knee(); k != 8 {
		t.Fatalf("linear knee %d, want the largest size 8", k)
	}
}

// TestFlatAfterTheCores is a count sweep's shape on 2 cores, given: one
// worker's throughput, twice it at 2 workers, no more at 3 and 4. The
// peak lies between 1.5 and 3.5 and the knee is 2 (on given numbers;
// TestCountSizedAtTheCores measures it).
func TestFlatAfterTheCores(t *testing.T) {
	for _, xs := range [][]float64{{16, 32, 32, 32}, {16, 31, 30, 29}, {16, 33, 31, 32}} {
		var pts []Point
		for i, x := range xs {
			pts = append(pts, Point{N: float64(i + 1), X: x})
		}
		u, err := FitUSL(pts)
		if err != nil {
			t.Fatal(err)
		}
		n, ok := u.Peak()
		if !ok || n < 1.5 || n > 3.5 || u.Knee() != 2 || u.Sigma < 0 || u.Sigma > 1 {
			t.Errorf("%v: %+v, peak %.2f (%v), knee %d", xs, u, n, ok, u.Knee())
		}
	}
}

// TestSigmaStaysASerialShare: throughput that falls from the first size
// on cannot push sigma past 1.
func TestSigmaStaysASerialShare(t *testing.T) {
	u, err := FitUSL([]Point{{1, 17.3}, {2, 17.5}, {3, 14.8}, {4, 17.4}})
	if err != nil {
		t.Fatal(err)
	}
	if u.Sigma < 0 || u.Sigma > 1 || u.Kappa < 0 {
		t.Errorf("%+v", u)
	}
}
