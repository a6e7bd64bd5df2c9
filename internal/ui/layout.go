package ui

import (
	"fmt"
	"strings"

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
	colGap = 2 // cells between columns, charts and cells
	// wideWidth is where the body splits into two columns: sizes, meters
	// and readouts on the left; the charts on the right.
	wideWidth = leftMin + colGap + rightMin
	// leftMin is the left column's least width in two columns: an
	// attached program's sizes table with its route columns, and the pick
	// line, fit (90-96 cells); rightMin the charts' least.
	leftMin  = 96
	rightMin = 46
)

// viewState is what the model shows beside the Snapshot: the ? screen and
// its scroll, the latency detail (d), the last Apply error.
type viewState struct {
	help    bool
	helpTop int // first line of the help shown
	detail  bool
	errLine string
	route   string // attached: the route the e key chose ("": the Snapshot's)
	// routeAuto: route is the busiest when first seen, not the e key's.
	routeAuto bool
}

// Render formats s for a screen of width x height cells: at most height
// lines, none wider than width. help replaces the body with the full key
// help. Render is pure; the model's View uses it.
func Render(s session.Snapshot, width, height int, help bool) string {
	return render(s, width, height, viewState{help: help})
}

// render lays out a screen: the header, the body the view asks for, the
// link's notice and an error line (the last failed Apply) when there are
// ones, the footer. Above
// MinWidth x MinHeight every line is exactly width cells and there are
// exactly height lines; each component fills the block it is given, so
// no label moves from one frame to the next.
func render(s session.Snapshot, width, height int, v viewState) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	if width < MinWidth || height < MinHeight {
		return cut(fmt.Sprintf("offtop needs %dx%d (now %dx%d)", MinWidth, MinHeight, width, height), width)
	}
	lines := make([]string, 0, height)
	gone := !s.Disconnected.IsZero() // attached, the program gone: no figures
	if gone {
		lines = append(lines, fit(disconnectedHeader(s), width))
	} else {
		lines = append(lines, fit(header(s, width), width))
	}
	avail := height - 2
	if v.errLine != "" {
		avail--
	}
	note := outOfRangeNote(s)
	if note != "" {
		avail--
	}
	if s.Notice != "" { // attached: the agent is another process
		avail--
	}
	var body []string
	switch {
	case gone && !v.help:
		body = disconnectedBody(s, width, avail)
	case v.help:
		body = helpBody(s, width, avail, v.helpTop)
	case v.detail:
		body = detailBody(s, width, avail)
	default:
		body = dashboard(s, width, avail)
	}
	lines = appendBlock(lines, body, avail, width)
	if s.Notice != "" {
		lines = append(lines, fit(theme.Warm.Render(markWarm+" "+s.Notice), width))
	}
	if v.errLine != "" {
		lines = append(lines, fit(theme.Err.Render(markHot+" "+v.errLine), width))
	}
	if note != "" {
		lines = append(lines, fit(theme.Err.Render(note), width))
	}
	lines = append(lines, fit(footerTaking(width, v, s.Remote != "", s.Actions, s.Paused && s.Remote == ""), width))
	return strings.Join(lines, "\n")
}

// title is a panel's title line: the title, then a rule to width w, with
// extra (plain figures) after the title when given.
func title(t, extra string, w int) string {
	head := theme.Title.Render(t)
	n := len([]rune(t))
	if extra != "" {
		head += "  " + extra
		n += 2 + cellWidth(extra)
	}
	if rest := w - n - 1; rest > 0 {
		head += " " + theme.Rule.Render(strings.Repeat("─", rest))
	}
	return head
}

// plan is the block heights of the one-column dashboard for a screen of
// width w and avail body lines: a pure function of the screen size and the
// scenario's readout count, never of figures that change from sample to
// sample, so the layout holds still.
type plan struct {
	look      int // the scenario's one-line "what to look at"
	headline  int
	sizeRows  int // rows of the sizes table (header, title, best line aside)
	meterRows int // rows of worker meters (the loop line aside)
	readouts  int // readout lines (the title aside); 0: no panel
	chart     int // the chart panel's lines; 0: none
}

// Fixed parts of the panels.
const (
	sizesFixed  = 3 // title, table header, best line
	metersFixed = 2 // title, the loop's line
	minChart    = chartFixed + minChartBody
)

// planFor allots avail lines: the headline, the sizes panel, the meters,
// one chart and the readouts' title with the load's loadLines wrapped
// under it and a line of readouts first; then four size rows, two meter
// rows and a taller chart; then a fifth size row, every readout, the look
// line; the chart takes the rest.
func planFor(avail, readoutLines, loadLines int, wantLook bool) plan {
	var p plan
	left := avail
	take := func(n int) int {
		n = max(min(n, left), 0)
		left -= n
		return n
	}
	p.headline = take(headlineLines)
	if left >= sizesFixed+2 {
		p.sizeRows = take(sizesFixed+2) - sizesFixed
	}
	if left >= metersFixed+1 {
		p.meterRows = take(metersFixed+1) - metersFixed
	}
	if left >= minChart {
		p.chart = take(minChart)
	}
	if readoutLines > 0 && left >= 2 {
		p.readouts = take(2+loadLines) - 1 // the load whole and a line of readouts
	}
	if p.sizeRows > 0 {
		p.sizeRows += take(2)
	}
	if p.meterRows > 0 {
		p.meterRows += take(1)
	}
	if p.chart > 0 {
		p.chart += take(2)
	}
	if p.sizeRows > 0 {
		p.sizeRows += take(1)
	}
	if p.readouts > 0 {
		p.readouts += take(readoutLines - p.readouts)
	}
	if wantLook {
		p.look = take(1)
	}
	if p.chart > 0 {
		p.chart += take(left)
	}
	return p
}

// dashboard is the body: one column below wideWidth, two above.
func dashboard(s session.Snapshot, w, avail int) []string {
	if w >= wideWidth {
		return twoColumns(s, w, avail)
	}
	rd := newReadouts(s, w)
	p := planFor(avail, len(rd.lines), rd.load, avail >= 26)
	var out []string
	out = appendBlock(out, headlinePanel(s, w), p.headline, w)
	if p.look > 0 {
		out = appendBlock(out, []string{theme.Faint.Render(s.Look)}, p.look, w)
	}
	if p.sizeRows > 0 {
		out = appendBlock(out, sizesPanel(s, w, p.sizeRows), p.sizeRows+sizesFixed, w)
	}
	if p.meterRows > 0 {
		out = appendBlock(out, metersPanel(s, w, p.meterRows), p.meterRows+metersFixed, w)
	}
	if p.readouts > 0 {
		out = appendBlock(out, rd.panel(w, p.readouts), p.readouts+1, w)
	}
	if p.chart > 0 {
		out = appendBlock(out, chartsPanel(s, w, p.chart), p.chart, w)
	}
	return out
}

// twoColumns: the headline and the look across the top; sizes, meters
// and readouts on the left; the latency table and the two charts, one
// above the other, on the right.
func twoColumns(s session.Snapshot, w, avail int) []string {
	lw := max(w/2, leftMin)
	lw = min(lw, w-colGap-rightMin)
	rw := w - colGap - lw
	var out []string
	out = appendBlock(out, headlinePanel(s, w), headlineLines, w)
	out = appendBlock(out, []string{theme.Faint.Render(s.Look)}, 1, w)
	h := avail - len(out)
	if h <= 0 {
		return out[:avail]
	}
	rd := newReadouts(s, lw)
	sizeRows := min(8, max(h/4, 2))
	meterRows := min(8, max(h-sizeRows-sizesFixed-metersFixed-1-len(rd.lines), 1))
	rdLines := min(len(rd.lines), max(h-sizeRows-sizesFixed-meterRows-metersFixed-1, 0))
	var left []string
	left = appendBlock(left, sizesPanel(s, lw, sizeRows), sizeRows+sizesFixed, lw)
	left = appendBlock(left, metersPanel(s, lw, meterRows), meterRows+metersFixed, lw)
	if rdLines > 0 {
		left = append(left, rd.panel(lw, rdLines)...)
	}
	if room := h - len(left) - 1; room >= 2 { // what is left: the pool and process in words
		left = append(left, title("pool and process", "", lw))
		left = append(left, markCut(flow(statCells(s), lw), room, lw)...)
	}
	var right []string
	// The latency table where its short labels fit ("probe since reset").
	if lat := 1 + latRows + 1; h-lat >= 2*minChart && rw >= 5*latCellW+latCountW+1+len("probe since reset") {
		right = append(right, title("latency", "", rw))
		right = appendBlock(right, latencyTable(s, rw, latRows+1), latRows+1, rw)
	}
	right = append(right, chartsStacked(s, rw, h-len(right))...)
	gap := strings.Repeat(" ", colGap)
	for i := 0; i < h; i++ {
		l, r := "", ""
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		out = append(out, fit(l, lw)+gap+fit(r, rw))
	}
	return out
}
