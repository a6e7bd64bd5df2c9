package sizing

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/scenarios"
)

func obs(w int, x, head, loop float64) Obs {
	return Obs{Workers: w, ThroughputPerS: x, HeadlineP99MS: head, LoopP99MS: loop, ArrivalPerS: math.NaN(), ServiceMS: math.NaN()}
}

// TestKneeRule: count on 2 cores (flat after 2) recommends 2 by the knee,
// with a peak between 1.5 and 3.5.
func TestKneeRule(t *testing.T) {
	var o []Obs
	for _, x := range [][4]float64{{16, 32, 31, 31}, {17, 31, 32, 30}, {16, 33, 31, 32}} {
		for i, v := range x {
			o = append(o, obs(i+1, v, 1000/v, 1))
		}
	}
	f := Recommend(scenarios.Sizing("count").Rule, o)
	if f.Rule != "knee" || f.Recommended != 2 || f.NPeak == nil || *f.NPeak < 1.5 || *f.NPeak > 3.5 || f.Points != 12 {
		t.Errorf("%+v", f)
	}
	if !strings.HasPrefix(f.Line, "recommended: 2 workers: the USL knee") || !strings.Contains(f.ModelLine(), "12 runs at 1,2,3,4 workers") {
		t.Errorf("%q / %q", f.Line, f.ModelLine())
	}
}

// TestLatencyRule: the lowest headline p99 among sizes whose Loop p99 is
// within the bound; inline, with the best headline but a blocked Loop, is
// not picked; medians of the runs decide.
func TestLatencyRule(t *testing.T) {
	o := []Obs{
		obs(0, 1, 5, 400), obs(0, 1, 5, 390),
		obs(1, 10, 9, 2), obs(1, 10, 30, 2), obs(1, 10, 8, 2), // median 9
		obs(2, 18, 12, 3), obs(2, 18, 7, 60), obs(2, 18, 6, 70), // median Loop 60: out
		obs(3, 20, 10, 20),
	}
	f := Recommend(scenarios.Sizing("server").Rule, o)
	if f.Rule != "latency" || f.Recommended != 1 || f.LoopBoundMS == nil || *f.LoopBoundMS != scenarios.LoopP99BoundMS {
		t.Errorf("%+v", f)
	}
	if !strings.Contains(f.Line, "Loop's p99 under 50 ms") {
		t.Error(f.Line)
	}
	none := Recommend(scenarios.Sizing("server").Rule, []Obs{obs(0, 1, 5, 400), obs(1, 10, 9, 70), obs(2, 18, 12, 65)})
	if want := "recommended: none: the Loop's p99 was over 50 ms at every size (lowest 65 ms, at 2 workers)"; none.Recommended != -1 || none.Line != want {
		t.Errorf("%+v\nwant line %q", none, want)
	}
}

// TestLittleRule: io at 160 arrivals/s, 50 ms a task, needs 8 workers;
// 52 ms needs 9 (8.3 rounded up).
func TestLittleRule(t *testing.T) {
	for _, c := range []struct {
		ms   float64
		want int
	}{{50, 8}, {52, 9}} {
		var o []Obs
		for _, w := range []int{1, 2, 4, 8, 16} {
			x := math.Min(float64(w)*1000/c.ms, 160)
			o = append(o, Obs{Workers: w, ThroughputPerS: x, HeadlineP99MS: 60, LoopP99MS: 1, ArrivalPerS: 160, ServiceMS: c.ms})
		}
		f := Recommend(scenarios.Sizing("io").Rule, o)
		if f.Rule != "little" || f.Recommended != c.want || f.LittleL == nil || math.Abs(*f.LittleL-160*c.ms/1000) > 1e-9 {
			t.Errorf("%v ms: %+v", c.ms, f)
		}
		if !strings.Contains(f.Line, "Little's law") {
			t.Error(f.Line)
		}
	}
	if f := Recommend(scenarios.Sizing("io").Rule, []Obs{obs(1, 1, 1, 1)}); f.Recommended != -1 {
		t.Errorf("no arrivals: %+v", f)
	}
}

// TestLinearHasNoPeak: sigma = kappa = 0 is "no peak within the sizes
// tried", and n_peak null.
func TestLinearHasNoPeak(t *testing.T) {
	var o []Obs
	for _, w := range []int{1, 2, 4, 8, 16} {
		o = append(o, obs(w, 10*float64(w), 1, 1))
	}
	f := Recommend(scenarios.Sizing("count").Rule, o)
	if f.PeakWithin || !strings.Contains(f.Verdict, "no peak within the sizes tried") {
		t.Errorf("%+v", f)
	}
}

func TestMeter(t *testing.T) {
	var m Meter
	if m.ArrivalPerS() != 0 || !math.IsNaN(m.ServiceMS(10)) {
		t.Error("empty meter")
	}
	// 2 busy workers throughout, 40 tasks/s, 160 submitted a second.
	for i := range 5 {
		m.Add(time.Duration(i)*time.Second, int64(160*i), []float64{1, 1, 0})
	}
	if m.ArrivalPerS() != 160 || m.ServiceMS(40) != 50 {
		t.Errorf("arrival %v service %v", m.ArrivalPerS(), m.ServiceMS(40))
	}
}

func TestSpread(t *testing.T) {
	if s := Spread(100, 95, 105); s != 0.1 || Flagged(100, 95, 105) || !Flagged(100, 94, 105) {
		t.Errorf("spread %v", s)
	}
	if !math.IsNaN(Spread(0, 1, 2)) || Flagged(0, 0, 5) {
		t.Error("a zero median")
	}
	if Median([]float64{3, 1, 2}) != 2 || Median([]float64{4, 1, 2, 3}) != 2.5 || !math.IsNaN(Median(nil)) {
		t.Error("median")
	}
}

// TestPoorFitKneeFromTheTable: throughput too noisy for the model (R^2
// under 0.8) takes the knee from the measured medians: 17, 29, 15, 30
// stops gaining after 2.
func TestPoorFitKneeFromTheTable(t *testing.T) {
	o := []Obs{obs(1, 17.3, 1, 1), obs(2, 28.9, 1, 1), obs(3, 15.0, 1, 1), obs(4, 29.8, 1, 1)}
	f := Recommend(scenarios.Sizing("count").Rule, o)
	if f.R2 == nil || *f.R2 >= PoorR2 || f.Recommended != 2 || !strings.Contains(f.Line, "measured medians") {
		t.Errorf("%+v", f)
	}
	if n, ok := measuredKnee([]Obs{obs(1, 10, 1, 1), obs(2, 20, 1, 1), obs(4, 40, 1, 1)}); !ok || n != 4 {
		t.Errorf("linear: knee %d", n)
	}
}

// TestNoTasksNoFit: sizes without pool tasks (stall) give no fit, saying
// why, and no size.
func TestNoTasksNoFit(t *testing.T) {
	f := Recommend(scenarios.Sizing("stall").Rule, []Obs{obs(1, 0, 80, 80), obs(2, 0, 80, 80), obs(3, 0, 80, 80), obs(4, 0, 80, 80)})
	if f.Recommended != -1 || f.FitError != "0 of the 4 sizes of 1 or more completed pool tasks, need 4" || f.Lambda != nil {
		t.Errorf("%+v", f)
	}
}

// TestRecommendFlatThroughput: tasks/s the same at every size (an
// open-loop load sets it) gets no peak and a verdict that says so; the
// latency rule still picks by the p99. A throughput that rises is not
// called flat.
func TestRecommendFlatThroughput(t *testing.T) {
	var obs []Obs
	for _, o := range []struct {
		n     int
		x, ms float64
	}{{1, 39.7, 2.7}, {2, 40.2, 1.3}, {3, 39.9, 1.3}, {4, 40.0, 1.1}} {
		obs = append(obs, Obs{Workers: o.n, ThroughputPerS: o.x, HeadlineP99MS: o.ms, LoopP99MS: 1})
	}
	f := Recommend(scenarios.Sizing("server").Rule, obs)
	if !strings.HasPrefix(f.Verdict, "throughput flat at every size (39.7-40.2 tasks/s") || f.NPeak != nil || f.PeakWithin {
		t.Errorf("verdict %q, N* %v, peak within %v: want flat, no peak", f.Verdict, f.NPeak, f.PeakWithin)
	}
	if f.Recommended != 4 {
		t.Errorf("recommended %d, want 4 (the lowest p99)", f.Recommended)
	}
	obs[3].ThroughputPerS = 42 // 5.8% over the least
	if f := Recommend(scenarios.Sizing("server").Rule, obs); strings.Contains(f.Verdict, "flat") {
		t.Errorf("throughput 39.7-42: verdict %q, want it not called flat", f.Verdict)
	}
}

// TestLatencyRuleTakesFewerWorkersWhenTied: medians within 10% of the
// lowest p99 are tied and the fewest workers win; out of the tie the
// lowest does.
func TestLatencyRuleTakesFewerWorkersWhenTied(t *testing.T) {
	rule := scenarios.Sizing("server").Rule
	o := func(n int, ms float64) Obs {
		return Obs{Workers: n, ThroughputPerS: 20, HeadlineP99MS: ms, LoopP99MS: 1}
	}
	if f := Recommend(rule, []Obs{o(3, 1.10), o(1, 1.00), o(2, 0.91), o(4, 0.95)}); f.Recommended != 1 {
		t.Errorf("1.00, 0.91, 1.10, 0.95: recommended %d, want 1 (within 10%% of 0.91)", f.Recommended)
	}
	if f := Recommend(rule, []Obs{o(1, 1.2), o(2, 0.91), o(3, 0.95)}); f.Recommended != 2 {
		t.Errorf("1.2, 0.91, 0.95: recommended %d, want 2", f.Recommended)
	}
}
