package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/guptarohit/asciigraph"
)

// Chart geometry. asciigraph v0.10.0 puts a label column before the plot:
// the label (axisLabelWidth runes, from fixedAxisLabel) plus one space, then
// the axis at column axisLabelWidth+1, then one column per point after the
// first. So a chart of w columns holds w-chartOverhead points.
const (
	axisLabelWidth = 5
	chartOverhead  = axisLabelWidth + 2
	// minChartBody is the fewest plot rows worth drawing.
	minChartBody = 2
)

// chart draws series (oldest first) as a line chart in a block of exactly
// height lines of exactly width cells: the caption on the first line, the
// plot below. It never panics: it cleans the series first (asciigraph
// v0.10.0 panics on an empty series or on ±Inf, draws nonsense for all-NaN
// and collapses a flat series to one row).
//
// Values are taken as >= 0 (latencies, depths): negative values are drawn as
// 0; NaN and ±Inf are gaps. Only the last points that fit are drawn, one
// column per sample. The y axis always starts at 0 and spans at least 1.
func chart(series []float64, width, height int, caption string) []string {
	return plotChart(series, width, height, caption, false)
}

// plotChart is chart; with integer true the series is a count and the
// axis labels are whole numbers (the span is a multiple of the rows).
func plotChart(series []float64, width, height int, caption string, integer bool) []string {
	if width <= 0 || height <= 0 {
		return nil
	}
	out := make([]string, 0, height)
	out = append(out, fit(caption, width))
	body := height - 1
	if body <= 0 {
		return out
	}
	npts := width - chartOverhead
	pts, ok := cleanSeries(series, npts)
	var plot []string
	switch {
	case body < minChartBody || npts < 1:
		// Too small to plot: say the last value instead.
		plot = []string{lastValueLine(series)}
	case !ok:
		plot = []string{strings.Repeat(" ", axisLabelWidth) + " ┤ no data yet"}
	default:
		plot = strings.Split(plotSeries(pts, body, integer), "\n")
	}
	return appendBlock(out, plot, body, width)
}

// cleanSeries returns the last n points of series with ±Inf turned into NaN
// (a gap) and negatives into 0. ok is false when no point is finite.
func cleanSeries(series []float64, n int) (pts []float64, ok bool) {
	if n < 1 {
		return nil, false
	}
	if len(series) > n {
		series = series[len(series)-n:]
	}
	pts = make([]float64, len(series))
	for i, v := range series {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			v = math.NaN()
		case v < 0:
			v = 0
		}
		if !math.IsNaN(v) {
			ok = true
		}
		pts[i] = v
	}
	return pts, ok
}

// plotSeries calls asciigraph on a cleaned series with at least one finite
// point and body >= 2 rows. The axis spans 0..max(1, max value) so a flat
// series still gets body rows.
func plotSeries(pts []float64, body int, integer bool) string {
	if out, ok := plots.get(pts, body, integer); ok {
		return out
	}
	out := drawSeries(pts, body, integer)
	plots.put(pts, body, integer, out)
	return out
}

// plots keeps the last plots drawSeries drew, by their inputs: a chart's
// columns hold still between seconds (chartStep), so most frames draw
// the plots of the frame before again. Safe for concurrent use.
var plots plotCache

type plotCache struct {
	mu    sync.Mutex
	e     [4]plotEntry // the dashboard draws two plots; two layouts' worth
	next  int          // the entry put replaces
	draws int          // plots drawn (put), for tests
}

type plotEntry struct {
	pts     []float64
	body    int
	integer bool
	out     string
}

// get returns the kept plot of exactly these inputs (every point equal
// bit for bit, so NaN gaps compare too).
func (c *plotCache) get(pts []float64, body int, integer bool) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.e {
		if e.out != "" && e.body == body && e.integer == integer && sameBits(e.pts, pts) {
			return e.out, true
		}
	}
	return "", false
}

func (c *plotCache) put(pts []float64, body int, integer bool, out string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.draws++
	c.e[c.next] = plotEntry{pts: slices.Clone(pts), body: body, integer: integer, out: out}
	c.next = (c.next + 1) % len(c.e)
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// drawSeries is plotSeries without the cache.
func drawSeries(pts []float64, body int, integer bool) string {
	hi := 1.0
	for _, v := range pts {
		if !math.IsNaN(v) && v > hi {
			hi = v
		}
	}
	label := fixedAxisLabel
	if integer {
		// Rows are 0, hi/(body-1), ...: a multiple of body-1 makes each a
		// whole number. A count smaller than the rows keeps every row (the
		// caption stays on the plot's first line, where it always is) and
		// labels the row nearest each whole number, the others blank.
		hi = math.Ceil(hi)
		step := 1.0
		if hi >= float64(body-1) {
			hi = math.Ceil(hi/float64(body-1)) * float64(body-1)
		} else {
			step = hi / float64(body-1)
		}
		label = func(v float64) string {
			if step < 1 && math.Abs(v-math.Round(v)) > step/2 {
				return strings.Repeat(" ", axisLabelWidth)
			}
			if s := fmt.Sprintf("%.0f", math.Round(v)); len(s) < axisLabelWidth {
				return fmt.Sprintf("%*s", axisLabelWidth, s)
			}
			return fixedAxisLabel(math.Round(v)) // 123k, 9e+18: the label column stays
		}
	}
	return asciigraph.Plot(pts,
		// Height h gives h+1 rows (0..h inclusive).
		asciigraph.Height(body-1),
		asciigraph.LowerBound(0),
		asciigraph.UpperBound(hi),
		asciigraph.YAxisValueFormatter(label),
	)
}

// fixedAxisLabel formats a y-axis value in exactly axisLabelWidth runes, so
// the label column never grows with the data.
func fixedAxisLabel(v float64) string {
	var s string
	if v == 0 {
		v = 0 // -0 prints as "-0.00"
	}
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		s = "?"
	case a < 1e5:
		// The most decimals (at most 2) that fit one cell short of the
		// width: 0.25, 9.75, 10.0, 45.5, 120, 12345.
		for prec := 2; prec >= 0; prec-- {
			s = fmt.Sprintf("%.*f", prec, v)
			if len(s) < axisLabelWidth {
				break
			}
		}
	case a < 1e8:
		s = fmt.Sprintf("%.0fk", v/1e3)
	default:
		s = fmt.Sprintf("%.0e", v)
	}
	if len(s) > axisLabelWidth {
		s = s[:axisLabelWidth]
	}
	if strings.Trim(s, "-0.") == "" { // a tiny negative value rounds to "-0.0"
		s = strings.TrimPrefix(s, "-")
	}
	return fmt.Sprintf("%*s", axisLabelWidth, s)
}

// lastValueLine is the one-line stand-in for a chart with no room.
func lastValueLine(series []float64) string {
	for i := len(series) - 1; i >= 0; i-- {
		if v := series[i]; !math.IsNaN(v) && !math.IsInf(v, 0) {
			return "now " + fmtNum(v)
		}
	}
	return "no data yet"
}
