package ui

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/offtop/offtop/internal/session"
)

func TestBucketMax(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		series    []float64
		per, last int
		want      []float64
	}{
		{[]float64{1, 2, 3}, 1, 2, []float64{1, 2, 3}},
		// samples 0..5 in buckets of 4: {0..3}, {4,5} (partial)
		{[]float64{1, 5, 2, 0, 7, 3}, 4, 5, []float64{5, 7}},
		// samples 3..8: {3}, {4..7}, {8}
		{[]float64{9, 1, 2, 3, 4, 6}, 4, 8, []float64{9, 4, 6}},
		// gaps: a bucket of NaN stays NaN; Inf is a gap
		{[]float64{nan, nan, 1, math.Inf(1)}, 2, 3, []float64{nan, 1}},
		{nil, 4, 0, nil},
	} {
		got := bucketMax(c.series, c.per, c.last)
		if !slices.EqualFunc(got, c.want, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
			t.Errorf("bucketMax(%v, %d, %d) = %v, want %v", c.series, c.per, c.last, got, c.want)
		}
	}
}

// TestChartsStillWithinASecond: the next sample within the same second
// changes only the chart's last column, not every column (a recording
// stays small), and the caption covers 4x the samples at 250ms.
func TestChartsStillWithinASecond(t *testing.T) {
	s := richSnapshot()
	s.Elapsed = session.Seconds(60 * time.Second) // sample 240: a bucket starts here
	a := strings.Split(ansi.Strip(Render(s, 100, 30, false)), "\n")
	s2 := s
	s2.Elapsed += session.Seconds(s.Interval)
	s2.ProbeP99History = append(slices.Clone(s.ProbeP99History[1:]), 7)
	s2.QueueDepthHistory = append(slices.Clone(s.QueueDepthHistory[1:]), 2)
	b := strings.Split(ansi.Strip(Render(s2, 100, 30, false)), "\n")
	changed := 0
	for i := range a {
		if strings.Contains(a[i], "┤") || strings.Contains(a[i], "┼") {
			ra, rb := []rune(a[i]), []rune(b[i])
			for j := range min(len(ra), len(rb)) {
				if ra[j] != rb[j] {
					changed++
				}
			}
		}
	}
	// The last columns of two charts, and y labels if the scale moved.
	if changed > 2*15 {
		t.Errorf("%d chart cells changed within one second", changed)
	}
	// 42 columns of 1s at 100 wide: the time axis reaches -30s (-40s
	// would start left of the plot).
	if scr := strings.Join(a, "\n"); !strings.Contains(scr, "-30s      -20s      -10s       now") {
		t.Errorf("time axis does not span 30s:\n%s", scr)
	}
}
