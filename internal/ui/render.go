package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
)

// MinWidth and MinHeight are the smallest screen offtop lays out. Below it
// Render shows a one-line notice instead.
const (
	MinWidth  = 60
	MinHeight = 16
)

// Layout constants.
const (
	colGap       = 2  // cells between bar columns, charts and flowing cells
	maxBarCols   = 4  // bar columns at most
	minBarCell   = 37 // a bar cell: label, [bar of >= 10], busy/cpu text
	maxBarCell   = 60 // wider than this and another column is added
	barTextWidth = 19 // "busy 100%! cpu 100%"
	minChartW    = 30 // narrower and the two charts stack
	minChartH    = 1 + minChartBody + 1
	latCellW     = 7 // a percentile column: 6 for the number, 1 for a mark
	latCountW    = 8
)

// Threshold marks. Each colour comes with a symbol so a monochrome screen
// (NO_COLOR, an Ascii profile) reads the same.
const (
	markHot  = "!"
	markWarm = "▲"
)

var (
	styleBold  = lipgloss.NewStyle().Bold(true)
	styleFaint = lipgloss.NewStyle().Faint(true)
	styleOK    = lipgloss.NewStyle().Foreground(lipgloss.Green)
	styleWarm  = lipgloss.NewStyle().Foreground(lipgloss.Yellow)
	styleHot   = lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true)
	stylePause = lipgloss.NewStyle().Reverse(true).Bold(true)
	styleErr   = lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true)
)

// level is a threshold band: 0 fine, 1 warm, 2 hot.
type level int

// styledMark is the mark in the level's colour; a fine level's mark is a
// plain space (a coloured blank costs a recording ~20 bytes a cell a frame
// and shows nothing).
func (l level) styledMark() string {
	if l == 0 {
		return " "
	}
	return l.style().Render(l.mark())
}

func (l level) mark() string {
	switch l {
	case 2:
		return markHot
	case 1:
		return markWarm
	}
	return " "
}

func (l level) style() lipgloss.Style {
	switch l {
	case 2:
		return styleHot
	case 1:
		return styleWarm
	}
	return styleOK
}

// busyLevel: busy >= 90% hot, >= 60% warm.
func busyLevel(share float64) level {
	switch share = clamp01(share); {
	case share >= 0.9:
		return 2
	case share >= 0.6:
		return 1
	}
	return 0
}

// probeLevel: probe p99 > 50 ms hot, > 10 ms warm.
func probeLevel(s hist.Summary) level {
	if s.Count == 0 {
		return 0
	}
	switch p := ms(s.P99); {
	case p > 50:
		return 2
	case p > 10:
		return 1
	}
	return 0
}

// MarkProbeP99 styles text, a figure for a Loop-probe p99 of p99, as the
// dashboard does: coloured by threshold and followed by its mark ("!" hot,
// "▲" warm, " " fine), so a monochrome copy reads the same. The exit
// summary uses it.
func MarkProbeP99(text string, p99 time.Duration) string {
	lv := probeLevel(hist.Summary{P99: p99, Count: 1})
	if lv == 0 {
		return text + " "
	}
	return lv.style().Render(text) + lv.styledMark()
}

// Render formats s for a screen of width x height cells: at most height
// lines, none wider than width. help replaces the body with the full key
// help. Render is pure; the model's View uses it.
func Render(s session.Snapshot, width, height int, help bool) string {
	return render(s, width, height, help, "")
}

// render is Render with an error line (the last failed Apply) above the
// footer when errLine is not empty.
func render(s session.Snapshot, width, height int, showHelp bool, errLine string) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	if width < MinWidth || height < MinHeight {
		return cut(fmt.Sprintf("offtop needs %dx%d (now %dx%d)", MinWidth, MinHeight, width, height), width)
	}
	lines := make([]string, 0, height)
	lines = append(lines, fit(header(s, width), width))
	avail := height - 2
	if errLine != "" {
		avail--
	}
	var body []string
	if showHelp {
		body = helpBody(s, width, avail)
	} else {
		body = dashboard(s, width, avail)
	}
	lines = appendBlock(lines, body, avail, width)
	if errLine != "" {
		lines = append(lines, fit(styleErr.Render(markHot+" "+errLine), width))
	}
	lines = append(lines, fit(footer(width), width))
	return strings.Join(lines, "\n")
}

// header is the top line. It drops to single spaces, then to short labels,
// then is cut, as the width shrinks.
func header(s session.Snapshot, w int) string {
	type field struct{ full, mid, short string }
	scen := s.Scenario
	if scen == "" {
		scen = "-"
	}
	workers := fmt.Sprintf("workers %d", s.Workers)
	if s.Workers == 0 {
		workers = "inline (0)"
	}
	procs := fmt.Sprintf("GOMAXPROCS %d", s.GOMAXPROCS)
	procsFull, procsShort := procs, fmt.Sprintf("procs %d", s.GOMAXPROCS)
	switch s.GOMAXPROCSSource {
	case "offtop": // g, G or --gomaxprocs: say so, beside what Go would pick
		procsFull = fmt.Sprintf("%s, set here; runtime default %d", procs, s.RuntimeGOMAXPROCS)
		procs += "*"
		procsShort += "*"
	case "env":
		procsFull = procs + " (GOMAXPROCS env)"
	}
	cpus := fmt.Sprintf("NumCPU %d", s.NumCPU)
	fs := []field{
		{workers, workers, workers},
		{procsFull, procs, procsShort},
		{cpus, cpus, fmt.Sprintf("cpus %d", s.NumCPU)},
	}
	if s.CPULimit > 0 {
		l := fmtNum(s.CPULimit)
		fs = append(fs, field{"cpu limit " + l, "limit " + l, "limit " + l})
	}
	sugg := fmt.Sprintf("suggested %d", s.SuggestedWorkers)
	short := fmt.Sprintf("sugg %d", s.SuggestedWorkers)
	t := "t=" + fmtSeconds(s.Elapsed.Seconds())
	fs = append(fs, field{sugg, short, short}, field{t, t, t})
	build := func(tier int, sep string) (string, int) {
		parts := []string{styleBold.Render("offtop"), styleBold.Render(scen)}
		for _, f := range fs {
			parts = append(parts, [3]string{f.full, f.mid, f.short}[tier])
		}
		if s.Oversubscribed {
			over := [3]string{"OVERSUBSCRIBED", "OVERSUB", "OVER"}[tier]
			parts = append(parts, styleHot.Render(markHot+" "+over))
		}
		if s.Paused {
			parts = append(parts, stylePause.Render("PAUSED"))
		}
		if s.PerTask {
			parts = append(parts, stylePause.Render([3]string{"PER-TASK", "PER-TASK", "PT"}[tier]))
		}
		line := strings.Join(parts, sep)
		return line, lipgloss.Width(line)
	}
	var line string
	for _, try := range []struct {
		tier int
		sep  string
	}{{0, "  "}, {1, "  "}, {0, " "}, {1, " "}, {2, "  "}, {2, " "}} {
		var n int
		line, n = build(try.tier, try.sep)
		if n <= w {
			return line
		}
	}
	return cut(line, w)
}

// footer is the short help from the key map.
func footer(w int) string {
	h := help.New()
	h.ShortSeparator = "  "
	h.Styles = helpStyles()
	h.SetWidth(w)
	return h.ShortHelpView(DefaultKeyMap.ShortHelp())
}

func helpStyles() help.Styles {
	return help.Styles{
		Ellipsis:       styleFaint,
		ShortKey:       styleBold,
		ShortDesc:      lipgloss.NewStyle(),
		ShortSeparator: lipgloss.NewStyle(),
		FullKey:        styleBold,
		FullDesc:       lipgloss.NewStyle(),
		FullSeparator:  lipgloss.NewStyle(),
	}
}

// Sections of the dashboard body, in screen order.
const (
	secLook = iota
	secBars
	secStats
	secReadouts
	secLatency
	secCharts
	nSections
)

// dashboard lays out the body in avail lines. Sections get a minimum first
// in priority order (bars, pool figures, latency, readouts, look), then grow
// in the same spirit: the full latency table, every readout and figure, all
// bars, and the charts take what is left, if at least minChartH.
func dashboard(s session.Snapshot, w, avail int) []string {
	stats := flow(statCells(s), w)
	readouts := flow(readoutCells(s), w)
	nbars := 1 + len(s.WorkerBusy)
	cols := barCols(w, nbars)
	barNeed := (nbars + cols - 1) / cols

	var alloc [nSections]int
	left := avail
	give := func(sec, upto int) {
		if g := min(upto-alloc[sec], left); g > 0 {
			alloc[sec] += g
			left -= g
		}
	}
	give(secBars, min(barNeed, 2))
	give(secStats, min(len(stats), 3))
	give(secLatency, 4)
	give(secReadouts, min(len(readouts), 2))
	give(secLook, 1)
	give(secLatency, 7)
	// The readouts are the scenario's answer: all of them before more bars
	// (bars that do not fit say "+K more").
	give(secReadouts, len(readouts))
	give(secStats, len(stats))
	give(secBars, barNeed)
	if left >= minChartH {
		give(secCharts, minChartH)
	}
	if alloc[secCharts] > 0 {
		give(secCharts, avail)
	}
	// Cells that did not fit are not dropped silently.
	stats = markCut(stats, alloc[secStats], w)
	readouts = markCut(readouts, alloc[secReadouts], w)

	var out []string
	for sec := 0; sec < nSections; sec++ {
		n := alloc[sec]
		if n == 0 {
			continue
		}
		var part []string
		switch sec {
		case secLook:
			part = []string{styleFaint.Render(s.Look)}
		case secBars:
			part = bars(s, w, n, cols)
		case secStats:
			part = stats
		case secReadouts:
			part = readouts
		case secLatency:
			part = latencyTable(s, w, n)
		case secCharts:
			part = charts(s, w, n)
		}
		out = appendBlock(out, part, n, w)
	}
	return out
}

// markCut keeps the first n of lines and, when some are left out, ends
// the last one kept with " …".
func markCut(lines []string, n, w int) []string {
	if n <= 0 || n >= len(lines) {
		return lines
	}
	lines = slices.Clone(lines[:n])
	lines[n-1] = fit(lines[n-1], max(w-2, 0)) + " …"
	return lines
}

// barCols is how many columns of bars a width holds: enough that no cell
// is wider than maxBarCell, at most what fits cells of minBarCell, never
// more than there are bars.
func barCols(w, nbars int) int {
	fitCols := (w + colGap) / (minBarCell + colGap)
	want := (w + colGap + maxBarCell + colGap - 1) / (maxBarCell + colGap)
	c := min(want, fitCols, maxBarCols, nbars)
	return max(c, 1)
}

type barItem struct {
	label  string
	busy   float64
	oncpu  float64
	hasCPU bool
	tail   string // replaces "cpu NN%" (the Loop shows its queue)
}

// bars draws the Loop's bar and one per worker, column-major in rows x
// cols; when they do not fit, the last cell says "+K more".
func bars(s session.Snapshot, w, rows, cols int) []string {
	items := []barItem{{label: "loop", busy: s.LoopBusy, tail: fmt.Sprintf("queue %d", s.LoopQueued)}}
	for i, b := range s.WorkerBusy {
		slot := i
		if i < len(s.WorkerSlots) {
			slot = s.WorkerSlots[i]
		}
		it := barItem{label: fmt.Sprintf("w%d", slot), busy: b}
		if i < len(s.WorkerOnCPU) {
			it.oncpu, it.hasCPU = s.WorkerOnCPU[i], true
		}
		if i < len(s.WorkerRetiring) && s.WorkerRetiring[i] {
			it.label += "↓"
		}
		items = append(items, it)
	}
	capacity := rows * cols
	more := 0
	if len(items) > capacity {
		more = len(items) - (capacity - 1)
		items = items[:capacity-1]
	}
	lw := 4
	for _, it := range items {
		lw = max(lw, lipgloss.Width(it.label))
	}
	cellW := (w - colGap*(cols-1)) / cols
	grid := make([][]string, rows)
	for i := 0; i < capacity; i++ {
		col, row := i/rows, i%rows
		var cell string
		switch {
		case i < len(items):
			cell = barCell(items[i], lw, cellW)
		case i == len(items) && more > 0:
			cell = styleBold.Render(fmt.Sprintf("+%d more", more))
		}
		if col < cols {
			grid[row] = append(grid[row], fit(cell, cellW))
		}
	}
	out := make([]string, rows)
	for r := range grid {
		out[r] = strings.TrimRight(strings.Join(grid[r], strings.Repeat(" ", colGap)), " ")
	}
	return out
}

// barCell is "w3   [|||||:::      ] busy  75%▲ cpu  40%". In the bar, "|"
// is busy time on a CPU (all of busy when on-CPU time is unknown) and ":"
// busy time off a CPU (waiting for a core, or for I/O).
func barCell(it barItem, lw, cellW int) string {
	barW := cellW - lw - 4 - barTextWidth
	if barW < 1 {
		barW = 1
	}
	busy := clamp01(it.busy)
	fill := int(math.Round(busy * float64(barW)))
	onFill := fill
	if it.hasCPU {
		onFill = min(fill, int(math.Round(min(clamp01(it.oncpu), busy)*float64(barW))))
	}
	lv := busyLevel(busy)
	bar := lv.style().Render(strings.Repeat("|", onFill)+strings.Repeat(":", fill-onFill)) +
		strings.Repeat(" ", barW-fill)
	tail := it.tail
	if tail == "" {
		tail = "cpu n/a"
		if it.hasCPU {
			tail = "cpu " + fmtPct(it.oncpu)
		}
	}
	label := fit(it.label, lw)
	text := "busy " + fmtPct(busy) + lv.styledMark() + " " + tail
	return label + " [" + bar + "] " + text
}

// statCells are the pool and process figures.
func statCells(s session.Snapshot) []string {
	c := []string{
		fmt.Sprintf("queue %d", s.QueueDepth),
		fmt.Sprintf("running %d", s.Running),
		fmt.Sprintf("submitted %d", s.Submitted),
		fmt.Sprintf("completed %d", s.Completed),
	}
	failed := fmt.Sprintf("failed %d", s.Failed)
	if s.Failed > 0 {
		failed = styleHot.Render(failed)
	}
	c = append(c, failed)
	if s.Rejected > 0 {
		c = append(c, styleHot.Render(fmt.Sprintf("rejected %d", s.Rejected)))
	}
	if s.Replaced > 0 {
		c = append(c, fmt.Sprintf("replaced %d", s.Replaced))
	}
	// Timed out is part of failed (see session.Snapshot); abandoned and
	// stuck are goroutines still running a timed-out task now.
	if s.TimedOut > 0 {
		c = append(c, styleHot.Render(fmt.Sprintf("timed out %d", s.TimedOut)))
	}
	if s.Abandoned > 0 {
		c = append(c, fmt.Sprintf("abandoned %d", s.Abandoned))
	}
	if s.Stuck > 0 {
		c = append(c, styleHot.Render(fmt.Sprintf("stuck %d", s.Stuck)))
	}
	c = append(c, fmtNum(s.ThroughputPerSec)+" tasks/s")
	// CPU now (last interval, 100% = one core) and since start, beside the
	// wall time it was spent in: the seed's "CPU time next to wall time".
	cpu := "CPU n/a"
	if s.CPUPercent >= 0 {
		cpu = "CPU " + fmtNum(s.CPUPercent) + "% now"
	}
	c = append(c, fmt.Sprintf("%s · %.2fs in %s", cpu, s.CPUSeconds, fmtSeconds(s.Elapsed.Seconds())))
	if s.RSSBytes < 0 {
		c = append(c, "RSS n/a")
	} else {
		c = append(c, fmt.Sprintf("RSS %.1f MB", float64(s.RSSBytes)/1e6))
	}
	c = append(c, fmt.Sprintf("goroutines %d", s.Goroutines))
	// The suggestion and its rule (issue 4), and where Go's own GOMAXPROCS
	// rounds the same CPUs the other way.
	if s.SuggestedRule != "" {
		rule := s.SuggestedRule
		if s.CPULimit > 0 && s.RuntimeGOMAXPROCS > int(s.CPULimit) {
			rule += fmt.Sprintf(" (Go rounds it up: GOMAXPROCS %d)", s.RuntimeGOMAXPROCS)
		}
		c = append(c, rule)
	}
	// Stalls under a second show in the histograms once the sample runs;
	// this line is for a Loop blocked for good (a hang run inline).
	if s.ProbeStalled >= time.Second {
		c = append(c, styleHot.Render(fmt.Sprintf("%s Loop blocked for %s now", markHot, fmtSeconds(s.ProbeStalled.Seconds()))))
	}
	if s.CPUWarning != "" {
		c = append(c, styleWarm.Render(markWarm+" "+s.CPUWarning))
	}
	return c
}

// readoutCells are the load line and the scenario's readouts.
func readoutCells(s session.Snapshot) []string {
	var c []string
	if s.Load != "" {
		c = append(c, "load: "+styleBold.Render(s.Load)+"  "+styleFaint.Render("[ ] to change"))
	}
	for _, r := range s.Readouts {
		c = append(c, r.Label+" "+styleBold.Render(readoutValue(r)))
	}
	return c
}

// readoutValue formats a readout: Text wins; unknown is n/a; Bool is
// true/false; a number gets the unit its Key ends in unless the label
// already names it.
func readoutValue(r scenarios.Readout) string {
	switch {
	case r.Text != "":
		return r.Text
	case !r.Known:
		return "n/a"
	case r.Bool:
		if r.Value != 0 {
			return "true"
		}
		return "false"
	}
	v := r.Value
	unit := ""
	switch k := r.Key; {
	case strings.HasSuffix(k, "_ms"):
		unit = " ms"
	case strings.HasSuffix(k, "_seconds"), strings.HasSuffix(k, "_s") && !strings.HasSuffix(k, "_per_s"):
		unit = " s"
	case strings.HasSuffix(k, "_per_s"):
		unit = "/s"
	case strings.HasSuffix(k, "_rps"):
		unit = " rps"
	case strings.HasSuffix(k, "_pct"), strings.HasSuffix(k, "_percent"):
		unit = "%"
	case strings.HasSuffix(k, "_bytes"):
		v, unit = v/1e6, " MB"
	}
	if u := strings.TrimSpace(unit); u != "" && strings.Contains(r.Label, u) {
		unit = ""
	}
	return fmtNum(v) + unit
}

// flow lays cells left to right, colGap apart, wrapping to new lines; a
// cell wider than w is cut.
func flow(cells []string, w int) []string {
	var out []string
	line, lw := "", 0
	sep := strings.Repeat(" ", colGap)
	for _, c := range cells {
		c = cut(c, w)
		cw := lipgloss.Width(c)
		if lw > 0 && lw+colGap+cw > w {
			out = append(out, line)
			line, lw = "", 0
		}
		if lw > 0 {
			line += sep
			lw += colGap
		}
		line += c
		lw += cw
	}
	if lw > 0 {
		out = append(out, line)
	}
	return out
}

type latRow struct {
	long, short string
	sum         hist.Summary
	probe       bool // p99 gets the probe thresholds
	prio        int  // lower is kept first when rows are short
}

// windowLabel is "5s window" from Snapshot.Window.
func windowLabel(s session.Snapshot) (long, short string) {
	if s.Window <= 0 {
		return "window", "win"
	}
	d := fmtDur(s.Window)
	return d + " window", d
}

// latencyTable is a header and up to six rows of percentiles in ms. With
// fewer than seven lines it keeps the most telling rows.
func latencyTable(s session.Snapshot, w, n int) []string {
	win, winShort := windowLabel(s)
	rows := []latRow{
		{"loop probe, corrected, " + win, "probe " + winShort, s.Probe, true, 0},
		{"loop probe, raw, " + win, "probe raw " + winShort, s.ProbeRaw, true, 4},
		{"loop probe, corrected, since reset", "probe since reset", s.ProbeTotal, true, 2},
		{"sched probe (free goroutine)", "sched probe", s.Sched, true, 3},
		{"runtime /sched/latencies, last " + fmtDur(s.Interval), "runtime sched", s.SchedRuntime, false, 5},
		{"task wait+run, " + win, "task " + winShort, s.Task, false, 1},
	}
	keep := n - 1
	if keep < 1 {
		return nil
	}
	if keep < len(rows) {
		var kept []latRow
		for _, r := range rows {
			if r.prio < keep {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	numW := 5*latCellW + latCountW
	lw := 0
	for _, r := range rows {
		lw = max(lw, lipgloss.Width(r.long))
	}
	short := lw+1+numW > w
	if short {
		lw = 0
		for _, r := range rows {
			lw = max(lw, lipgloss.Width(r.short))
		}
	}
	lw = max(lw, len("latency ms"))
	lw = min(lw, max(w-numW-1, 1))
	head := fit("latency ms", lw) + " "
	for _, h := range []string{"p50", "p90", "p99", "p99.9", "max"} {
		head += fmt.Sprintf("%6s ", h)
	}
	head += fmt.Sprintf("%*s", latCountW, "n")
	out := []string{styleBold.Render(head)}
	for _, r := range rows {
		label := r.long
		if short {
			label = r.short
		}
		line := fit(label, lw) + " "
		cells := summaryCells(r.sum)
		for i, c := range cells {
			cell := fmt.Sprintf("%6s", c)
			mark := " "
			if i == 2 && r.probe {
				lv := probeLevel(r.sum)
				if lv > 0 {
					cell = lv.style().Render(cell)
				}
				mark = lv.styledMark()
			}
			line += cell + mark
		}
		line += fmt.Sprintf("%*s", latCountW, fmtCount(r.sum.Count))
		out = append(out, line)
	}
	return out
}

// chartStep is the time one chart column stands for, at least one sample:
// a column per second (the highest value of its samples) rather than per
// sample keeps the charts still between seconds, so a recording does not
// redraw both charts, scrolled, four times a second, and shows 4x the time.
const chartStep = time.Second

// charts draws probe p99 and queue depth history side by side, or stacked
// when the width is short, in exactly h lines.
func charts(s session.Snapshot, w, h int) []string {
	win, _ := windowLabel(s)
	per := samplesPerColumn(s.Interval)
	probe := bucketMax(s.ProbeP99History, per, sampleIndex(s))
	queue := bucketMax(s.QueueDepthHistory, per, sampleIndex(s))
	capProbe := func(cw int) string {
		span := historySpan(s, len(probe), per, cw)
		return caption(cw, "loop probe p99 ms (corrected, "+win+")"+span, "loop p99 ms"+span, "loop p99 ms")
	}
	capQueue := func(cw int) string {
		span := historySpan(s, len(queue), per, cw)
		return caption(cw, "pool queue depth"+span, "queue depth"+span, "queue depth")
	}
	if w >= 2*minChartW+colGap {
		lw := (w - colGap) / 2
		rw := w - colGap - lw
		l := chart(probe, lw, h, capProbe(lw))
		r := chart(queue, rw, h, capQueue(rw))
		out := make([]string, h)
		for i := range out {
			out[i] = l[i] + strings.Repeat(" ", colGap) + r[i]
		}
		return out
	}
	top := h / 2
	out := chart(probe, w, top, capProbe(w))
	return append(out, chart(queue, w, h-top, capQueue(w))...)
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
	if per <= 1 || len(series) == 0 {
		return series
	}
	first := last - len(series) + 1 // sample number of series[0]
	var out []float64
	bucket := math.MinInt
	for i, v := range series {
		b := floorDiv(first+i, per)
		if b != bucket {
			out = append(out, math.NaN())
			bucket = b
		}
		if !math.IsNaN(v) && !math.IsInf(v, 0) && (math.IsNaN(out[len(out)-1]) || v > out[len(out)-1]) {
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
		if lipgloss.Width(t) <= w {
			return styleBold.Render(t)
		}
	}
	return styleBold.Render(texts[len(texts)-1])
}

// historySpan is ", last 40s" for the columns a chart of width cw shows,
// n columns of per samples each available.
func historySpan(s session.Snapshot, n, per, cw int) string {
	n = min(n, max(cw-chartOverhead, 0))
	if n == 0 {
		return ""
	}
	if s.Interval <= 0 {
		return fmt.Sprintf(", last %d samples", n*per)
	}
	return ", last " + fmtSeconds((s.Interval * time.Duration(n*per)).Seconds())
}

// helpBody is the ? screen: every binding, then what the marks mean.
func helpBody(s session.Snapshot, w, avail int) []string {
	h := help.New()
	h.Styles = helpStyles()
	out := []string{styleBold.Render("keys"), ""}
	groups := DefaultKeyMap.FullHelp()
	if all := h.FullHelpView(groups); lipgloss.Width(all) <= w {
		out = append(out, strings.Split(all, "\n")...)
	} else {
		// Too narrow for the columns side by side: one group under another.
		for _, g := range groups {
			out = append(out, strings.Split(h.FullHelpView([][]key.Binding{g}), "\n")...)
		}
	}
	res := "the resolution"
	if s.Resolution > 0 {
		res = fmtDur(s.Resolution)
	}
	legend := []string{
		"bars: | busy on a CPU (all of busy when on-CPU time is unknown), : busy off a CPU (waiting for a core or for I/O); ↓ a retiring worker (ends after its task).",
		"marks: " + markWarm + " busy >= 60% or probe p99 > 10 ms; " + markHot + " busy >= 90% or probe p99 > 50 ms.",
		"CPU N% now: process CPU over the last interval, 100% = one core busy; then CPU seconds since start in the wall time since start.",
		"charts: one column per " + fmtDur(chartStep) + " (per sample when the interval is longer), the highest value of its samples.",
		"loop probe: lateness of a callback due every " + res + " on the Loop; corrected adds the samples a stalled probe missed (coordinated omission).",
		"sched probe: the same on a free goroutine. runtime /sched/latencies: how long runnable goroutines waited for a CPU.",
		"n/a: no data yet.",
		"pool: submitted = completed + failed + timed out + running + queue; timed out: ran past its deadline; abandoned: goroutines still running a timed-out task (Go cannot kill one; a fresh worker took its slot); stuck: timed-out tasks holding their worker because the abandoned cap was reached.",
	}
	out = append(out, "", styleBold.Render("reading the screen"), "")
	for _, l := range legend {
		out = append(out, wordwrap(l, w)...)
	}
	if len(out) > avail {
		out = out[:avail]
	}
	return out
}
