package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/offtop/offtop/internal/session"
)

// chartFixed is a chart block's lines beside its plot: the caption, the
// size ribbon and the time axis.
const chartFixed = 3

// minChartW is the narrowest chart; narrower and the one-column layout
// shows the probe chart alone.
const minChartW = 30

// chartStep is the time one chart column stands for, at least one sample:
// a column per second (the highest value of its samples) rather than per
// sample keeps the charts still between seconds, so a recording does not
// redraw both charts, scrolled, four times a second.
const chartStep = time.Second

// chartData is the history bucketed into chart columns, oldest first.
type chartData struct {
	probe, queue, workers []float64
	step                  time.Duration // the time one column stands for
}

func newChartData(s session.Snapshot) chartData {
	per := samplesPerColumn(time.Duration(s.Interval))
	last := sampleIndex(s)
	d := chartData{
		probe:   bucketMax(s.ProbeP99History, per, last),
		queue:   bucketMax(s.QueueDepthHistory, per, last),
		workers: bucketLast(s.WorkersHistory, per, last),
		step:    time.Duration(per) * time.Duration(s.Interval),
	}
	if d.step <= 0 {
		d.step = chartStep
	}
	return d
}

// chartsPanel is the one-column layout's charts in exactly h lines: the
// probe's and the pool queue's side by side, or the probe's alone where
// two would be too narrow.
func chartsPanel(s session.Snapshot, w, h int) []string {
	d := newChartData(s)
	if w < 2*minChartW+colGap {
		return probeChart(d, w, h)
	}
	lw := (w - colGap) / 2
	rw := w - colGap - lw
	l, r := probeChart(d, lw, h), queueChart(d, rw, h)
	out := make([]string, h)
	for i := range out {
		out[i] = fit(l[i], lw) + strings.Repeat(" ", colGap) + fit(r[i], rw)
	}
	return out
}

// chartsStacked is the two-column layout's charts, one above the other,
// in exactly h lines: the probe's, the one to watch, gets three fifths.
func chartsStacked(s session.Snapshot, w, h int) []string {
	d := newChartData(s)
	top := h * 3 / 5
	return append(probeChart(d, w, top), queueChart(d, w, h-top)...)
}

func probeChart(d chartData, w, h int) []string {
	return chartBlock(d, d.probe, false, w, h,
		"Loop probe p99 ms, per second (corrected)", "Loop probe p99 ms /s", "probe p99 ms")
}

func queueChart(d chartData, w, h int) []string {
	return chartBlock(d, d.queue, true, w, h,
		"pool queue depth (tasks waiting for a worker)", "pool queue depth", "pool queue")
}

// chartBlock is a caption, the plot of vals (the newest at the right edge,
// one column per d.step), the pool size in force under each column, and a
// time axis in seconds ago: exactly h lines of w cells.
func chartBlock(d chartData, vals []float64, integer bool, w, h int, captions ...string) []string {
	if h <= 0 {
		return nil
	}
	n := max(w-chartOverhead, 0)
	if h < chartFixed+minChartBody || n < 1 {
		return appendBlock(nil, chart(vals, w, h, caption(w, captions...)), h, w)
	}
	out := plotChart(padLeft(vals, n), w, h-2, caption(w, captions...), integer)
	out = append(out, fit(ribbon(padLeft(d.workers, n)), w), fit(timeAxis(n, d.step), w))
	return out
}

// padLeft is the last n of vals, NaN-padded on the left to exactly n, so
// the newest column is always the chart's last and the axis holds still.
func padLeft(vals []float64, n int) []float64 {
	if len(vals) >= n {
		return vals[len(vals)-n:]
	}
	out := make([]float64, n)
	for i := range n - len(vals) {
		out[i] = math.NaN()
	}
	copy(out[n-len(vals):], vals)
	return out
}

// ribbon is the pool size in force under each chart column: the size
// where it changes (and at the first column with data), "─" where it
// holds, blank where there is no sample; 0 is inline. A press of 1 shows
// as a "1" under the column where the tail falls.
func ribbon(sizes []float64) string {
	var b strings.Builder
	b.WriteString(fmt.Sprintf("%*s ", chartOverhead-1, "size"))
	prev := math.NaN()
	skip := 0
	for _, v := range sizes {
		switch {
		case skip > 0:
			skip--
		case math.IsNaN(v):
			b.WriteByte(' ')
		case v != prev:
			label := fmt.Sprintf("%.0f", v)
			b.WriteString(label)
			skip = len(label) - 1
		default:
			b.WriteString("─")
		}
		if !math.IsNaN(v) {
			prev = v
		}
	}
	return b.String()
}

// timeAxis labels n chart columns of step each in time ago: "now" under
// the last, "-10s" every 10 columns back, each ending under its column.
func timeAxis(n int, step time.Duration) string {
	cells := []rune(strings.Repeat(" ", n))
	put := func(end int, label string) {
		r := []rune(label)
		start := end - len(r) + 1
		if start < 0 {
			return
		}
		for i := max(start-1, 0); i <= min(end+1, n-1); i++ {
			if cells[i] != ' ' {
				return // keep a blank between labels
			}
		}
		copy(cells[start:], r)
	}
	put(n-1, "now")
	every := 10
	if step > chartStep {
		every = 5
	}
	for k := every; k < n; k += every {
		put(n-1-k, "-"+Span(time.Duration(k)*step))
	}
	return strings.Repeat(" ", chartOverhead) + string(cells)
}

// samplesPerColumn is how many samples one chart column holds: chartStep
// over the interval, at least 1.
func samplesPerColumn(interval time.Duration) int {
	if interval <= 0 {
		return 1
	}
	return max(int(math.Round(float64(chartStep)/float64(interval))), 1)
}

// sampleIndex is the number of the newest sample since the start (its due
// time over the interval), so buckets stay aligned to the run's seconds as
// the history slides; 0 when unknown.
func sampleIndex(s session.Snapshot) int {
	if s.Interval <= 0 {
		return 0
	}
	return int(math.Round(float64(s.Elapsed) / float64(s.Interval)))
}

// bucketMax groups series (oldest first, its last point sample number
// last) into buckets of per samples aligned to sample numbers, and returns
// the highest finite value of each (NaN for a bucket with none). The last
// bucket may be partial: it grows until its second is over.
func bucketMax(series []float64, per, last int) []float64 {
	return bucket(series, per, last, func(cur, v float64) bool { return math.IsNaN(cur) || v > cur })
}

// bucketLast is bucketMax keeping each bucket's last finite value: the
// pool size in force at the end of the column.
func bucketLast(series []float64, per, last int) []float64 {
	return bucket(series, per, last, func(float64, float64) bool { return true })
}

func bucket(series []float64, per, last int, better func(cur, v float64) bool) []float64 {
	if per <= 1 || len(series) == 0 {
		return series
	}
	first := last - len(series) + 1 // sample number of series[0]
	var out []float64
	b := math.MinInt
	for i, v := range series {
		if k := floorDiv(first+i, per); k != b {
			out = append(out, math.NaN())
			b = k
		}
		if !math.IsNaN(v) && !math.IsInf(v, 0) && better(out[len(out)-1], v) {
			out[len(out)-1] = v
		}
	}
	return out
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// caption is the first of texts that fits in w cells, bold.
func caption(w int, texts ...string) string {
	for _, t := range texts {
		if cellWidth(t) <= w {
			return theme.Title.Render(t)
		}
	}
	return theme.Title.Render(texts[len(texts)-1])
}
