package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

var chartSizes = [][2]int{{1, 1}, {3, 2}, {7, 3}, {8, 3}, {10, 2}, {12, 4}, {30, 4}, {40, 10}, {80, 20}, {120, 40}}

// checkChart fails unless the block is exactly w x h.
func checkChart(t *testing.T, lines []string, w, h int) {
	t.Helper()
	if len(lines) != h {
		t.Fatalf("%dx%d: %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if n := ansi.StringWidth(ansi.Strip(l)); n != w {
			t.Errorf("%dx%d: line %d is %d wide: %q", w, h, i, n, ansi.Strip(l))
		}
		if strings.ContainsAny(ansi.Strip(l), "\n\r") {
			t.Errorf("line %d has a line break", i)
		}
	}
}

func chartAllSizes(t *testing.T, series []float64) map[[2]int][]string {
	t.Helper()
	out := map[[2]int][]string{}
	for _, sz := range chartSizes {
		lines := chart(series, sz[0], sz[1], "caption")
		checkChart(t, lines, sz[0], sz[1])
		out[sz] = lines
	}
	return out
}

func body(lines []string) string { return ansi.Strip(strings.Join(lines[1:], "\n")) }

func TestChartEmptySeries(t *testing.T) {
	for _, s := range [][]float64{nil, {}} {
		got := chartAllSizes(t, s)
		if b := body(got[[2]int{40, 10}]); !strings.Contains(b, "no data yet") {
			t.Errorf("empty: %q", b)
		}
	}
}

func TestChartAllNaN(t *testing.T) {
	got := chartAllSizes(t, []float64{math.NaN(), math.NaN(), math.NaN()})
	b := body(got[[2]int{40, 10}])
	if !strings.Contains(b, "no data yet") || strings.Contains(b, "NaN") || strings.Contains(b, "Inf") {
		t.Errorf("all NaN: %q", b)
	}
}

func TestChartInf(t *testing.T) {
	for _, s := range [][]float64{
		{1, math.Inf(1), 3},
		{1, math.Inf(-1), 3},
		{math.Inf(1), math.Inf(-1)},
		{math.Inf(1)},
		{2, math.NaN(), math.Inf(1), 4, math.Inf(-1), 5},
	} {
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			got := chartAllSizes(t, s)
			b := body(got[[2]int{40, 10}])
			if strings.Contains(b, "Inf") || strings.Contains(b, "NaN") {
				t.Errorf("%v: %q", s, b)
			}
		})
	}
}

func TestChartFlat(t *testing.T) {
	for _, v := range []float64{0, 5, 0.001, 1e6} {
		s := []float64{v, v, v, v, v, v}
		got := chartAllSizes(t, s)
		lines := got[[2]int{40, 10}]
		axisRows := 0
		for _, l := range lines[1:] {
			if strings.ContainsAny(l, "┤┼") {
				axisRows++
			}
		}
		if axisRows != 9 {
			t.Errorf("flat %v collapsed to %d rows:\n%s", v, axisRows, body(lines))
		}
	}
}

func TestChartSinglePoint(t *testing.T) {
	for _, s := range [][]float64{{7}, {0}, {math.NaN(), 3}} {
		got := chartAllSizes(t, s)
		if b := body(got[[2]int{40, 10}]); !strings.ContainsAny(b, "┼╶╴") {
			t.Errorf("%v: no point drawn:\n%s", s, b)
		}
	}
}

func TestChartNegativeDrawnAsZero(t *testing.T) {
	got := chartAllSizes(t, []float64{-5, -1, 2})
	if b := body(got[[2]int{40, 10}]); strings.Contains(b, "-") {
		t.Errorf("negative label:\n%s", b)
	}
}

func TestChartTakesLastPointsThatFit(t *testing.T) {
	s := make([]float64, 1000)
	s[0] = 999 // too old to be shown
	s[len(s)-1] = 8
	lines := chart(s, 40, 6, "c")
	checkChart(t, lines, 40, 6)
	b := body(lines)
	if strings.Contains(b, "999") || !strings.Contains(b, fixedAxisLabel(8)) {
		t.Errorf("axis should top at 8:\n%s", b)
	}
	// Each point is one column: the block holds width-chartOverhead points.
	pts, ok := cleanSeries(s, 40-chartOverhead)
	if !ok || len(pts) != 40-chartOverhead {
		t.Errorf("cleanSeries kept %d points", len(pts))
	}
}

func TestChartLabelsFixedWidth(t *testing.T) {
	for _, v := range []float64{0, 0.001, 0.5, 9.99, 9.999, 10, 99.96, 100, 1234, 12345, 99999, 123456, 1e9, 1e20, -3, math.NaN(), math.Inf(1)} {
		if got := fixedAxisLabel(v); len([]rune(got)) != axisLabelWidth {
			t.Errorf("fixedAxisLabel(%v) = %q", v, got)
		}
	}
}

func TestChartWildValues(t *testing.T) {
	s := []float64{0, 1e12, 3e-9, math.MaxFloat64 / 4, 5}
	chartAllSizes(t, s)
}

func TestChartCaptionFirstLine(t *testing.T) {
	lines := chart([]float64{1, 2, 3}, 30, 5, "probe p99 ms")
	if got := strings.TrimRight(ansi.Strip(lines[0]), " "); got != "probe p99 ms" {
		t.Errorf("caption line %q", got)
	}
	long := chart([]float64{1, 2}, 10, 3, "a very long caption indeed")
	if got := ansi.Strip(long[0]); got != "a very lo…" {
		t.Errorf("cut caption %q", got)
	}
}

// TestAxisLabelNoNegativeZero pins "-0.0 ┤" seen on a paused server chart.
func TestAxisLabelNoNegativeZero(t *testing.T) {
	for _, v := range []float64{-0.001, -0.0004, math.Copysign(0, -1)} {
		if got := fixedAxisLabel(v); strings.Contains(got, "-") {
			t.Errorf("fixedAxisLabel(%v) = %q", v, got)
		}
	}
}

// TestCountChartCaptionOnItsPlot: a small count in a tall block fills the
// block under its caption (the newcomer saw the pool queue's title four
// blank lines above its chart at 160x48), each whole number labelled once,
// no fractions.
func TestCountChartCaptionOnItsPlot(t *testing.T) {
	out := plotChart([]float64{0, 1, 3, 3, 2}, 40, 18, "pool queue depth", true)
	if len(out) != 18 {
		t.Fatalf("%d lines, want 18", len(out))
	}
	if strings.TrimSpace(out[1]) == "" || !strings.Contains(out[1], "3 ┤") {
		t.Errorf("the line under the caption is not the plot's top (3):\n%s", strings.Join(out, "\n"))
	}
	seen := map[string]int{}
	for _, l := range out[1:] {
		if f := strings.Fields(l); len(f) > 0 && !strings.ContainsAny(f[0], "┤┼") {
			seen[f[0]]++
		}
	}
	for _, k := range []string{"0", "1", "2", "3"} {
		if seen[k] != 1 {
			t.Errorf("label %s appears %d times, want once: %v", k, seen[k], seen)
		}
	}
	if len(seen) != 4 {
		t.Errorf("labels %v, want 0..3 only", seen)
	}
}

// TestCountChartHugeCounts: a count of 2^63 (a hostile agent's
// queue_depth) keeps the label column's width, so the plot keeps its
// columns; the labels were 19 digits wide and squeezed it to a few.
func TestCountChartHugeCounts(t *testing.T) {
	col := func(out []string) int { // the widest label column, to the axis
		w := 0
		for _, l := range out[1:] {
			if i := strings.IndexAny(l, "┤┼"); i >= 0 {
				w = max(w, ansi.StringWidth(l[:i]))
			}
		}
		return w
	}
	want := col(plotChart([]float64{0, 3, 5}, 40, 10, "pool queue depth", true))
	for _, s := range [][]float64{{0, 9223372036854775807, 5}, {0, 123456, 3}} {
		out := plotChart(s, 40, 10, "pool queue depth", true)
		checkChart(t, out, 40, 10)
		if got := col(out); got != want {
			t.Errorf("%v: label column %d wide, want %d as for a small count:\n%s", s, got, want, strings.Join(out, "\n"))
		}
	}
}

// TestPlotsKeptNeverStale: plotSeries, which keeps the last plots, gives
// exactly what drawSeries draws for every input, over a run of inputs
// that differ from each other in one point (a value, a NaN gap, -0), in
// the height or in integer, drawn in turn so the kept ones are near
// misses.
func TestPlotsKeptNeverStale(t *testing.T) {
	base := []float64{1, 2, 3, math.NaN(), 5, 8, 13, 2, 0, 4}
	variants := [][]float64{base}
	for i := range base {
		for _, v := range []float64{base[i] + 0.01, math.NaN(), 0, math.Copysign(0, -1), 40} {
			x := slices.Clone(base)
			x[i] = v
			variants = append(variants, x)
		}
	}
	variants = append(variants, base[1:], append(slices.Clone(base), 4))
	for round := range 3 {
		for i, pts := range variants {
			for _, body := range []int{4, 6} {
				for _, integer := range []bool{false, true} {
					if got, want := plotSeries(pts, body, integer), drawSeries(pts, body, integer); got != want {
						t.Fatalf("round %d, variant %d %v, body %d, integer %v: kept plot differs from the drawn one:\n%s\nwant\n%s",
							round, i, pts, body, integer, got, want)
					}
				}
			}
		}
	}
}

// TestPlotsDrawnOnlyWhenTheirColumnsChange: a frame of the same Snapshot
// draws no plot again; a Snapshot whose probe history has one more point
// draws again, and its frame is render's of it, not the one before.
func TestPlotsDrawnOnlyWhenTheirColumnsChange(t *testing.T) {
	misses := func() int {
		plots.mu.Lock()
		defer plots.mu.Unlock()
		return plots.draws
	}
	s := richSnapshot()
	first := render(s, 100, 30, viewState{})
	m0 := misses()
	if again := render(s, 100, 30, viewState{}); again != first || misses() != m0 {
		t.Errorf("the same Snapshot again: %d plots drawn, frame equal %v", misses()-m0, again == first)
	}
	n := slices.Clone(s.ProbeP99History)
	n[len(n)-1] += 100
	s.ProbeP99History = n
	if next := render(s, 100, 30, viewState{}); next == first || misses() == m0 {
		t.Errorf("a changed probe history: %d plots drawn, frame changed %v", misses()-m0, next != first)
	}
}
