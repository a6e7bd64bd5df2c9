package ui

import (
	"fmt"
	"math"
	"strings"

	"github.com/offtop/offtop/internal/session"
)

// Meter geometry.
const (
	minMeterCell = 27 // "w10↓ [bar of 6] 100%! cpu 100%"
	maxMeterCell = 48 // wider than this and another column is added
	meterLabelW  = 4  // "loop", "w10↓"
	meterTextW   = 14 // "100%! cpu 100%"
	maxMeterCols = 6
)

// meterCols is how many meter columns a width holds: enough that no cell
// is wider than maxMeterCell, as many as fit cells of minMeterCell.
func meterCols(w int) int {
	fits := (w + colGap) / (minMeterCell + colGap)
	want := (w + colGap + maxMeterCell + colGap - 1) / (maxMeterCell + colGap)
	return max(min(want, fits, maxMeterCols), 1)
}

type meter struct {
	label  string
	busy   float64
	oncpu  float64
	hasCPU bool
	loop   bool // the Loop: no on-CPU figure
}

// metersPanel is the Loop's meter and the workers' in a grid, w0..wN left
// to right, top to bottom, in exactly rows+metersFixed lines. Workers that
// do not fit fold into "+K more" in the last cell, the same way on every
// scenario. The title carries the pool's queue (tasks waiting for a
// worker), named apart from the Loop's queue (callbacks waiting for the
// Loop) on the Loop's line, and the tasks failed since the scenario came
// on screen.
func metersPanel(s session.Snapshot, w, rows int) []string {
	// Failed since the scenario came on screen: a crash's panics are not
	// stall's (the detail view has the counts since the start too).
	here := s.SinceScenario().Failed
	failed := "failed " + fixedInt(here, 5)
	if here > 0 {
		failed = theme.Hot.Render(failed)
	}
	extra := "pool queue " + fixedInt(s.QueueDepth, 5) + "  running " + fixedInt(s.Running, 4) + "  " + failed +
		"  " + fixedNum(float64(s.ThroughputPerSec), 6) + " tasks/s"
	// Where the figures do not fit beside the full title (a column of a
	// two-column screen: "24 tasks/s" was cut to "24…" at 120x40), the
	// title is shorter; which one depends on w alone. The window tasks/s
	// is over ("(5s)") follows where it fits beside the full title.
	name := "loop and workers"
	if _, win := windowLabel(s); len([]rune(name))+3+cellWidth(extra)+len(win)+3 <= w {
		extra += " (" + win + ")"
	}
	if len([]rune(name))+3+cellWidth(extra) > w {
		name = "workers"
	}
	out := []string{cutTitle(name, extra, w)}

	cols := meterCols(w)
	cellW := (w - colGap*(cols-1)) / cols
	loop := meterCell(meter{label: "loop", busy: float64(s.LoopBusy), loop: true}, cellW)
	cpu := "CPU   n/a"
	if s.CPUPercent >= 0 {
		cpu = "CPU " + fixedNum(float64(s.CPUPercent), 4) + "%"
	}
	rss := "RSS       n/a"
	if s.RSSBytes >= 0 {
		rss = "RSS " + fixedMiB(s.RSSBytes.MiB())
	}
	out = append(out, fitCells(w, loop,
		"Loop queue "+fixedInt(int64(s.LoopQueued), 5), cpu+" now", rss, threadsLabel(s)+" "+fixedInt(int64(s.Goroutines), 5)))

	// Workers are named by place, w0..wN, in slot order: after 8 -> 1 the
	// one left is w0, whichever slot the pool kept.
	ms := make([]meter, 0, len(s.WorkerBusy))
	for i, b := range s.WorkerBusy {
		m := meter{label: fmt.Sprintf("w%d", i), busy: b}
		if i < len(s.WorkerOnCPU) {
			m.oncpu, m.hasCPU = s.WorkerOnCPU[i], true
		}
		if i < len(s.WorkerRetiring) && s.WorkerRetiring[i] {
			m.label += "↓"
		}
		ms = append(ms, m)
	}
	capacity := rows * cols
	more := 0
	if len(ms) > capacity {
		more = len(ms) - (capacity - 1)
		ms = ms[:capacity-1]
	}
	if len(ms) == 0 && rows > 0 {
		line := theme.Faint.Render("no workers: tasks run inline on the Loop (press 1-9 for a pool)")
		if !s.Takes(session.SetWorkers) {
			line = theme.Faint.Render("no workers: tasks run inline on the Loop (no pool here to resize)")
		}
		if s.Stuck > 0 { // no worker left: what is stuck holds the Loop
			line = theme.Hot.Render(fmt.Sprintf("no workers; a stuck task holds the Loop: %d wait (1-9 moves them to a pool)", s.QueueDepth))
		}
		out = append(out, fit(line, w))
		rows--
	}
	gap := strings.Repeat(" ", colGap)
	for r := 0; r < rows; r++ {
		var cells []string
		for c := 0; c < cols; c++ {
			i := r*cols + c
			switch {
			case i < len(ms):
				cells = append(cells, fit(meterCell(ms[i], cellW), cellW))
			case i == len(ms) && more > 0:
				cells = append(cells, fit(theme.Bold.Render(fmt.Sprintf("+%d more", more)), cellW))
			}
		}
		out = append(out, strings.TrimRight(strings.Join(cells, gap), " "))
	}
	return out
}

// cutTitle is title with extra cut to fit w.
func cutTitle(t, extra string, w int) string {
	room := w - len([]rune(t)) - 3
	if room < 8 {
		return title(t, "", w)
	}
	return title(t, cut(extra, room), w)
}

// fitCells joins cells colGap apart, leaving out every cell from the
// first that does not fit w (cells have fixed widths, so which fit
// depends on w alone).
func fitCells(w int, cells ...string) string {
	var b strings.Builder
	n := 0
	for i, c := range cells {
		cw := cellWidth(c)
		if i > 0 {
			if n+colGap+cw > w {
				break
			}
			b.WriteString(strings.Repeat(" ", colGap))
			n += colGap
		} else if cw > w {
			return cut(c, w)
		}
		b.WriteString(c)
		n += cw
	}
	return b.String()
}

// meterCell is "w3   [|||||:::      ]  75%▲ cpu  40%". In the bar, "|" is
// busy time on a CPU (all of busy when on-CPU time is unknown) and ":"
// busy time off a CPU (waiting for a core, or for I/O). The Loop's cell
// has no on-CPU figure; its bar lines up with the workers'.
func meterCell(m meter, cellW int) string {
	barW := max(cellW-meterLabelW-4-meterTextW, 1)
	busy := clamp01(m.busy)
	fill := int(math.Round(busy * float64(barW)))
	onFill := fill
	if m.hasCPU {
		onFill = min(fill, int(math.Round(min(clamp01(m.oncpu), busy)*float64(barW))))
	}
	lv := busyLevel(busy)
	bar := lv.style().Render(strings.Repeat("|", onFill)+strings.Repeat(":", fill-onFill)) +
		strings.Repeat(" ", barW-fill)
	tail := ""
	switch {
	case m.loop:
	case m.hasCPU:
		tail = " cpu " + fmtPct(m.oncpu)
	default:
		tail = " cpu  n/a"
	}
	return fit(m.label, meterLabelW) + " [" + bar + "] " + fmtPct(m.busy) + lv.styledMark() + tail
}
