package ui

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/workload"
)

// plain renders and strips escape sequences, as a monochrome screen reads.
func plain(s session.Snapshot, w, h int, help bool) string {
	return ansi.Strip(Render(s, w, h, help))
}

// checkFits fails when out has more lines than h or a line wider than w.
// Above the minimum size the screen must be exactly w x h (stable layout).
func checkFits(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if out == "" {
		lines = nil
	}
	if len(lines) > h {
		t.Errorf("%dx%d: %d lines", w, h, len(lines))
	}
	exact := w >= MinWidth && h >= MinHeight
	if exact && len(lines) != h {
		t.Errorf("%dx%d: %d lines, want exactly %d", w, h, len(lines), h)
	}
	for i, l := range lines {
		p := ansi.Strip(l)
		if n := ansi.StringWidth(p); n > w || (exact && n != w) {
			t.Errorf("%dx%d: line %d is %d wide: %q", w, h, i, n, p)
		}
		if n := lipgloss.Width(l); n > w {
			t.Errorf("%dx%d: line %d is %d wide by lipgloss", w, h, i, n)
		}
	}
}

var sizes = [][2]int{{80, 24}, {160, 48}, {100, 30}, {60, 16}, {59, 16}, {60, 15}, {40, 10}, {20, 5}, {1, 1}, {200, 60}, {61, 40}, {300, 17}}

func TestRenderFitsEverySize(t *testing.T) {
	many := richSnapshot()
	for i := 0; i < 40; i++ {
		many.WorkerBusy = append(many.WorkerBusy, float64(i)/40)
		many.WorkerSlots = append(many.WorkerSlots, 100+i)
		many.WorkerOnCPU = append(many.WorkerOnCPU, 0.1)
		many.WorkerRetiring = append(many.WorkerRetiring, i%5 == 0)
	}
	snaps := map[string]session.Snapshot{
		"rich":  richSnapshot(),
		"empty": {},
		"many":  many,
	}
	for name, s := range snaps {
		for _, sz := range sizes {
			for _, help := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%dx%d/help=%v", name, sz[0], sz[1], help), func(t *testing.T) {
					checkFits(t, Render(s, sz[0], sz[1], help), sz[0], sz[1])
					checkFits(t, render(s, sz[0], sz[1], viewState{help: help, errLine: "apply: pool closed"}), sz[0], sz[1])
				})
			}
		}
	}
}

func TestRenderZeroSizeIsEmpty(t *testing.T) {
	for _, sz := range [][2]int{{0, 0}, {0, 24}, {80, 0}, {-1, -1}} {
		if out := Render(richSnapshot(), sz[0], sz[1], false); out != "" {
			t.Errorf("%v: %q", sz, out)
		}
	}
}

// detail renders the d view, plain.
func detail(s session.Snapshot, w, h int) string {
	return ansi.Strip(render(s, w, h, viewState{detail: true}))
}

func TestRender80x24ShowsEverything(t *testing.T) {
	out := plain(richSnapshot(), 80, 24, false)
	for _, want := range []string{
		// header
		"offtop", "server", "workers 8", "GOMAXPROCS 2", "NumCPU 4", "limit 1.5", "start 2", "t=12.3s", "PAUSED",
		// headline
		"▶ ping p99  now      48 ms (5s)", "at the pick    8.40 ms (1 worker)", "loop probe p99      48▲ ms", "at this size     190 ms",
		// sizes tried
		"sizes tried", "size    held  Loop p99 ms  ping p99 ms  tasks/s  CPU/wall",
		"  inline      8s          780          793       20     0.900", " *     1      8s         1.20         8.40",
		">      8      4s          190          195", "pick: 1 worker, lowest ping p99 (8.40 ms, Loop p99 1.20 ms)",
		// meters
		"loop and workers", "pool queue    12", "running    8", "failed     3", "96 tasks/s",
		"loop [", " 93%!  Loop queue     3", "CPU  184% now", "RSS   43.1 MiB",
		"w0   [", "100%! cpu  48%", "w2   [", "70%▲ cpu  70%", "+5 more",
		// readouts
		"load: 2 clients per endpoint  [ ] to change", "ping p50      0.21 ms",
		// a chart, its size ribbon and time axis
		"Loop probe p99 ms", "pool queue depth", "┤", "size ", "───8", "-10s", "now",
		// footer
		"? help", "q quit", "d detail",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("80x24 lacks %q\n%s", want, out)
		}
	}
	if strings.Contains(out, "rejected") {
		t.Errorf("rejected 0 is shown")
	}
}

// TestDetailShowsTheLatencyTable: d shows the full latency table, the
// pool's counts in words and every readout.
func TestDetailShowsTheLatencyTable(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {100, 30}} {
		out := detail(richSnapshot(), sz[0], sz[1])
		checkFits(t, render(richSnapshot(), sz[0], sz[1], viewState{detail: true}), sz[0], sz[1])
		for _, want := range []string{
			"latency ms", "p50", "p99.9", "48▲", "61!", "task", "sched probe",
			"pool since start: submitted 1234", "completed 1200", "failed 3", "replaced 1", "RSS 43.1 MiB",
			"/slow p99", "answer ok",
		} {
			if !strings.Contains(out, want) && !strings.Contains(oneSpace(out), want) {
				t.Errorf("%v detail lacks %q\n%s", sz, want, out)
			}
		}
	}
	if out := detail(richSnapshot(), 100, 30); !strings.Contains(out, "loop probe, corrected, since reset") {
		t.Errorf("100x30 detail lacks the long labels\n%s", out)
	}
}

func TestRenderEmptySnapshotShowsNA(t *testing.T) {
	out := plain(session.Snapshot{}, 80, 24, false)
	for _, want := range []string{"offtop", "inline (0)", "loop [", "no data yet", "now     n/a ms", "n/a (hold a size 1s)", "no workers: tasks run inline"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q\n%s", want, out)
		}
	}
	out = detail(session.Snapshot{}, 80, 24)
	rows := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "▶") || strings.HasPrefix(l, "loop probe p99 ") {
			continue // the headline, not the table
		}
		if strings.Contains(l, "probe") && strings.Contains(l, "n/a") || strings.HasPrefix(l, "task") || strings.HasPrefix(l, "runtime") {
			if got := strings.Count(l, "n/a"); got != 5 {
				t.Errorf("%q: %d n/a, want 5", l, got)
			}
			rows++
		}
	}
	if rows != 6 {
		t.Errorf("%d latency rows with n/a, want 6\n%s", rows, out)
	}
	if regexp.MustCompile(`\b0\.00\s`).MatchString(out) {
		t.Errorf("empty summaries show a number\n%s", out)
	}
}

func TestRenderUnknownFiguresAreNA(t *testing.T) {
	s := richSnapshot()
	s.WorkerOnCPU = nil
	s.CPUPercent = -1
	s.RSSBytes = -1
	out := plain(s, 80, 24, false)
	for _, want := range []string{"cpu  n/a", "CPU   n/a", "RSS       n/a"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q\n%s", want, out)
		}
	}
}

// Timed-out tasks, abandoned goroutines and stuck workers show in the
// detail view (and the wide screen's pool panel) when there are any, and
// not otherwise.
func TestRenderTimedOutAbandonedStuck(t *testing.T) {
	out := detail(richSnapshot(), 80, 24)
	for _, absent := range []string{"timed out", "abandoned", "stuck"} {
		if strings.Contains(out, absent) {
			t.Errorf("%q shown at 0\n%s", absent, out)
		}
	}
	s := richSnapshot()
	s.TimedOut, s.Abandoned, s.Stuck = 2, 1, 1
	for _, out := range []string{detail(s, 80, 24), detail(s, 120, 40), plain(s, 160, 48, false)} {
		for _, want := range []string{"failed 3", "timed out 2", "abandoned 1", "stuck 1", "replaced 1"} {
			if !strings.Contains(oneSpace(out), want) {
				t.Errorf("lacks %q\n%s", want, out)
			}
		}
	}
}

func TestRenderInlineAndRejected(t *testing.T) {
	s := richSnapshot()
	s.Workers = 0
	s.Rejected = 7
	s.Paused = false
	out := plain(s, 80, 24, false)
	if !strings.Contains(out, "inline (0)") {
		t.Errorf("lacks inline (0)\n%s", out)
	}
	if !strings.Contains(oneSpace(detail(s, 80, 24)), "rejected 7") {
		t.Errorf("detail lacks rejected 7")
	}
	if strings.Contains(out, "PAUSED") {
		t.Error("PAUSED shown while running")
	}
}

func TestRenderTooManyWorkersSaysMore(t *testing.T) {
	s := richSnapshot()
	s.WorkerBusy = make([]float64, 64)
	s.WorkerSlots = nil
	s.WorkerOnCPU = nil
	s.WorkerRetiring = nil
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {160, 48}} {
		out := plain(s, sz[0], sz[1], false)
		m := regexp.MustCompile(`\+(\d+) more`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%v: no +K more\n%s", sz, out)
		}
		cells := regexp.MustCompile(`w(\d+) +\[`).FindAllStringSubmatch(out, -1)
		if got := fmt.Sprint(64 - len(cells)); got != m[1] {
			t.Errorf("%v: +%s more with %d meters shown of 64", sz, m[1], len(cells))
		}
		// w0..wN in order, left to right, top to bottom.
		for i, c := range cells {
			if c[1] != fmt.Sprint(i) {
				t.Errorf("%v: meter %d is w%s", sz, i, c[1])
				break
			}
		}
	}
}

func TestRenderTooSmallNotice(t *testing.T) {
	if got := plain(richSnapshot(), 40, 10, false); got != "offtop needs 60x16 (now 40x10)" {
		t.Errorf("40x10: %q", got)
	}
	if got := plain(richSnapshot(), 20, 5, false); ansi.StringWidth(got) != 20 || !strings.HasPrefix(got, "offtop needs") {
		t.Errorf("20x5: %q", got)
	}
	if got := plain(richSnapshot(), 1, 1, false); ansi.StringWidth(got) != 1 {
		t.Errorf("1x1: %q", got)
	}
}

func TestRenderUsesRoomWhenLarger(t *testing.T) {
	small := plain(richSnapshot(), 80, 24, false)
	mid := plain(richSnapshot(), 100, 30, false)
	big := plain(richSnapshot(), 160, 48, false)
	axis := func(s string) int { return strings.Count(s, "┤") + strings.Count(s, "┼") }
	if axis(big) <= axis(mid) || axis(mid) <= axis(small) {
		t.Errorf("charts not taller with more room: %d, %d, %d axis rows", axis(small), axis(mid), axis(big))
	}
	// Two charts side by side from 80 columns: a line with two axes.
	if !regexp.MustCompile(`[┤┼].*[┤┼]`).MatchString(small) {
		t.Errorf("charts not side by side at 80\n%s", small)
	}
	// At 160, two columns: the sizes table beside the latency table.
	if !regexp.MustCompile(`sizes tried ─+  latency ─+`).MatchString(big) || !strings.Contains(big, "sched probe") {
		t.Errorf("no two columns at 160\n%s", big)
	}
	if strings.Contains(small, "sched probe") || strings.Contains(mid, "sched probe") {
		t.Error("the latency table is on the one-column dashboard (it is behind d)")
	}
}

// TestPickLineWholeOnWideScreens: from 100 columns up, one column or
// two, the rows' pick line (its doubt and both figures) and the sizes
// table are never cut: two columns start only where the left one holds
// them (at 120 it was 72 cells and cut both).
func TestPickLineWholeOnWideScreens(t *testing.T) {
	s := richSnapshot()
	for i := range s.Sizes {
		s.Sizes[i].MachineBusy = true // the longer line: "(uncertain: all rows busy)"
	}
	for _, w := range []int{100, 120, 143, 144, 160, 200} {
		out := plain(s, w, 40, false)
		pick := ""
		for _, l := range strings.Split(out, "\n") {
			if i := strings.Index(l, "pick: "); i >= 0 {
				pick = l[i:]
			}
			if strings.Contains(l, "held  Loop p99 ms") && strings.Contains(l, "…") {
				t.Errorf("%d columns: the sizes table's head is cut: %q", w, l)
			}
		}
		if pick == "" || strings.Contains(pick, "…") {
			t.Errorf("%d columns: pick line %q, want it whole", w, pick)
		}
	}
}

func TestRenderHelpListsEveryBinding(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {100, 30}} {
		out := plain(richSnapshot(), sz[0], sz[1], true)
		for _, b := range DefaultKeyMap.all() {
			if !strings.Contains(out, b.Help().Key) || !strings.Contains(out, b.Help().Desc) {
				t.Errorf("%v help lacks %q %q\n%s", sz, b.Help().Key, b.Help().Desc, out)
			}
		}
		if strings.Contains(out, "sizes tried") {
			t.Errorf("help did not replace the body")
		}
	}
}

func TestRenderErrorLine(t *testing.T) {
	out := ansi.Strip(render(richSnapshot(), 80, 24, viewState{errLine: "pool is closed"}))
	lines := strings.Split(out, "\n")
	if !strings.Contains(lines[len(lines)-2], "! pool is closed") {
		t.Errorf("error line: %q", lines[len(lines)-2])
	}
}

// Colours must downsample: through an Ascii or NoTTY profile no colour
// escape is left, and the marks still tell the thresholds apart.
func TestRenderDownsamples(t *testing.T) {
	raw := Render(richSnapshot(), 80, 24, false)
	colour := regexp.MustCompile(`\x1b\[[0-9;]*(3[0-9]|4[0-9]|9[0-7])(;[0-9;]*)?m`)
	if !colour.MatchString(raw) {
		t.Fatal("no colour at all in the raw render")
	}
	for _, p := range []colorprofile.Profile{colorprofile.Ascii, colorprofile.NoTTY} {
		var b bytes.Buffer
		w := &colorprofile.Writer{Forward: &b, Profile: p}
		if _, err := w.WriteString(raw); err != nil {
			t.Fatal(err)
		}
		if colour.MatchString(b.String()) {
			t.Errorf("%v: colour escapes left", p)
		}
		if txt := ansi.Strip(b.String()); !strings.Contains(txt, "100%!") || !strings.Contains(txt, "70%▲") {
			t.Errorf("%v: threshold marks lost", p)
		}
		if p == colorprofile.NoTTY && strings.Contains(b.String(), "\x1b") {
			t.Errorf("NoTTY: escapes left")
		}
	}
}

func TestRenderIsPure(t *testing.T) {
	s := richSnapshot()
	a := Render(s, 100, 30, false)
	b := Render(s, 100, 30, false)
	if a != b {
		t.Error("two renders of one snapshot differ")
	}
	if fmt.Sprint(s) != fmt.Sprint(richSnapshot()) {
		t.Error("Render changed the snapshot")
	}
}

func TestThresholds(t *testing.T) {
	for _, c := range []struct {
		busy float64
		want level
	}{{0, 0}, {0.59, 0}, {0.6, 1}, {0.89, 1}, {0.9, 2}, {1, 2}, {1.5, 2}, {-1, 0}} {
		if got := busyLevel(c.busy); got != c.want {
			t.Errorf("busyLevel(%v) = %v, want %v", c.busy, got, c.want)
		}
	}
	for _, c := range []struct {
		p99  float64
		n    int64
		want level
	}{{1, 10, 0}, {10, 10, 0}, {10.5, 10, 1}, {50, 10, 1}, {51, 10, 2}, {500, 0, 0}} {
		if got := probeLevel(summary(0, 0, c.p99, 0, 0, c.n)); got != c.want {
			t.Errorf("probeLevel(%v, n=%d) = %v, want %v", c.p99, c.n, got, c.want)
		}
	}
}

func TestFmtNum(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{0, "0"}, {0.123, "0.12"}, {3.44, "3.4"}, {12.3, "12"}, {120.4, "120"}, {1234.6, "1235"}, {5, "5"}, {0.004, "0.004"}, {0.0004, "<.001"}, {-2.5, "-2.5"}} {
		if got := fmtNum(c.v); got != c.want {
			t.Errorf("fmtNum(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestSummaryCellsNA(t *testing.T) {
	if got := summaryCells(hist.Summary{}); got != [5]string{"n/a", "n/a", "n/a", "n/a", "n/a"} {
		t.Errorf("empty: %v", got)
	}
	if got := summaryCells(summary(0.12, 3.4, 120, 1500, 2000, 1)); got != [5]string{"0.12", "3.4", "120", "1500", "2000"} {
		t.Errorf("full: %v", got)
	}
}

func TestRenderCutReadoutsAreMarked(t *testing.T) {
	s := richSnapshot()
	for i := 0; i < 30; i++ {
		s.Readouts = append(s.Readouts, s.Readouts[i%len(s.Readouts)])
	}
	out := plain(s, 80, 24, false)
	checkFits(t, out, 80, 24)
	if !strings.Contains(out, " …") {
		t.Errorf("cut readouts not marked\n%s", out)
	}
}

func BenchmarkRender(b *testing.B) {
	s := richSnapshot()
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			for b.Loop() {
				_ = Render(s, sz[0], sz[1], false)
			}
		})
	}
}

// TestHeaderSaysWhoSetGOMAXPROCS: g/G mark GOMAXPROCS set here (*), beside the runtime's
// default, an oversubscribed pool is marked, the suggestion shows its rule.
func TestHeaderSaysWhoSetGOMAXPROCS(t *testing.T) {
	s := richSnapshot()
	s.GOMAXPROCS, s.GOMAXPROCSSource, s.RuntimeGOMAXPROCS = 1, "offtop", 2
	s.Oversubscribed = true
	s.SuggestedRule = "suggest 1 = floor(1.5 CPU quota)"
	out := ansi.Strip(Render(s, 160, 48, false)) + detail(s, 160, 48)
	for _, want := range []string{"GOMAXPROCS 1* (runtime default 2)", "OVERSUBSCRIBED", "suggest 1 = floor(1.5 CPU quota)"} {
		if !strings.Contains(out, want) {
			t.Errorf("160x48 lacks %q:\n%s", want, out)
		}
	}
	small := ansi.Strip(Render(s, 80, 24, false))
	if !strings.Contains(small, "GOMAXPROCS 1*") && !strings.Contains(small, "procs 1*") {
		t.Errorf("80x24 header does not mark GOMAXPROCS as set here:\n%s", small)
	}
}

// TestNodeProgramNamesNodeFigures: a Node agent's line (gomaxprocs_source
// "node") reads as Node's: the header's parallelism and libuv pool, the
// meters' and detail's JS threads, no GOMAXPROCS nor goroutines; a Go
// program's reads as before.
func TestNodeProgramNamesNodeFigures(t *testing.T) {
	s := richSnapshot()
	s.GOMAXPROCS, s.GOMAXPROCSSource, s.Goroutines = 2, "node", 3
	s.Readouts = append(s.Readouts, workload.Readout{Key: "libuv_threads", Value: 4, Known: true, Unit: workload.Count})
	wide := ansi.Strip(Render(s, 160, 48, false))
	for _, want := range []string{"parallelism 2, libuv pool 4", "JS threads"} {
		if !strings.Contains(wide, want) {
			t.Errorf("160x48 lacks %q:\n%s", want, wide)
		}
	}
	if d := detail(s, 160, 48); !strings.Contains(d, "JS threads") || strings.Contains(d, "goroutines") {
		t.Errorf("detail does not count JS threads:\n%s", d)
	}
	if head := strings.SplitN(wide, "\n", 2)[0]; strings.Contains(head, "GOMAXPROCS") || strings.Contains(wide, "goroutines") {
		t.Errorf("a Node program reads Go's names:\n%s", wide)
	}
	if small := plain(s, 100, 30, false); !strings.Contains(small, "procs 2") && !strings.Contains(small, "parallelism 2") ||
		!strings.Contains(small, "JS threads") {
		t.Errorf("100x30 lacks the parallelism or the JS threads:\n%s", small)
	}
	s.GOMAXPROCSSource = "runtime"
	if out := ansi.Strip(Render(s, 160, 48, false)); !strings.Contains(out, "GOMAXPROCS 2") || !strings.Contains(out, "goroutines") {
		t.Errorf("a Go program lost Go's names:\n%s", out)
	}
}

// TestMetersNamedByPlace: after 8 -> 1 the one worker left is w0, whatever
// slot the pool kept; two workers read w0 then w1 on one line, under the
// Loop's own line.
func TestMetersNamedByPlace(t *testing.T) {
	s := richSnapshot()
	s.WorkerSlots, s.WorkerBusy, s.WorkerOnCPU, s.WorkerRetiring = []int{2}, []float64{0.5}, []float64{0.5}, []bool{false}
	out := plain(s, 100, 30, false)
	if !strings.Contains(out, "w0   [") || strings.Contains(out, "w2") {
		t.Errorf("one worker in slot 2 is not w0:\n%s", out)
	}
	s.WorkerSlots, s.WorkerBusy, s.WorkerOnCPU, s.WorkerRetiring = []int{0, 1}, []float64{0.5, 0.2}, []float64{0.5, 0.2}, []bool{false, false}
	lines := strings.Split(plain(s, 100, 30, false), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "loop [") {
			if next := lines[i+1]; !strings.HasPrefix(next, "w0 ") || !strings.Contains(next, "w1 ") || strings.Contains(l, "w1") {
				t.Errorf("loop line %q, then %q", l, next)
			}
		}
	}
}

// TestFailedIsPerScenario: after a tab from crash, the meters' title
// counts the failures since the scenario came on screen, not crash's; the
// detail view has both, each named.
func TestFailedIsPerScenario(t *testing.T) {
	s := richSnapshot()
	s.Scenario = "stall"
	s.Failed = 4
	s.ScenarioStart = session.PoolCounts{Submitted: 100, Completed: 90, Failed: 4}
	out := plain(s, 100, 30, false)
	if !strings.Contains(out, "failed     0") || strings.Contains(out, "failed     4") {
		t.Errorf("the meters count crash's failures on stall\n%s", out)
	}
	out = render(s, 100, 40, viewState{detail: true})
	out = oneSpace(ansi.Strip(out))
	for _, want := range []string{"failed 4", "this scenario: submitted", "failed 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("detail: no %q\n%s", want, out)
		}
	}
}

// TestFooterKeepsTheKeys: at 80 columns the key bar keeps every key (the
// newcomer's ended "d detail …", r and space lost); narrower, "? help"
// stays, last.
func TestFooterKeepsTheKeys(t *testing.T) {
	out := ansi.Strip(footer(80, viewState{}, false))
	if ansi.StringWidth(out) > 80 || strings.Contains(out, "…") {
		t.Errorf("footer at 80 cut: %q", out)
	}
	for _, k := range []string{"? help", "q quit", "+/- 0-9 size", "a auto", "[/] load", "tab next", "d detail", "r reset", "space pause"} {
		if !strings.Contains(out, k) {
			t.Errorf("footer at 80 lost %q: %q", k, out)
		}
	}
	if out := ansi.Strip(footer(60, viewState{}, false)); ansi.StringWidth(out) > 60 || !strings.HasSuffix(out, "? help") {
		t.Errorf("footer at 60: %q, want ? help last", out)
	}
	if out := ansi.Strip(footer(100, viewState{}, false)); !strings.Contains(out, "+/- workers  0-9 size") {
		t.Errorf("footer at 100: %q, want the full labels", out)
	}
}

// TestFooterSaysResumeWhenPaused: paused, the space key's entry says what
// it does now; an attached program's IDLE is no pause of the user's.
func TestFooterSaysResumeWhenPaused(t *testing.T) {
	s := richSnapshot()
	s.Paused = true
	if out := ansi.Strip(Render(s, 100, 30, false)); !strings.Contains(out, "space resume") || strings.Contains(out, "space pause") {
		t.Errorf("paused: footer without \"space resume\":\n%s", out)
	}
	if out := ansi.Strip(Render(s, 80, 24, false)); !strings.Contains(out, "space go") {
		t.Errorf("paused at 80 columns: footer without \"space go\", the short form:\n%s", out)
	}
	s.Paused = false
	if out := ansi.Strip(Render(s, 100, 30, false)); !strings.Contains(out, "space pause") {
		t.Errorf("running: footer without \"space pause\":\n%s", out)
	}
}

// TestHeaderSpellsOutWhatToActOn: at 80 columns, oversubscribed, the
// header keeps "start" and "OVERSUBSCRIBED" whole (never cut to
// "! OVERSUB"), and its form does not change as t grows.
func TestHeaderSpellsOutWhatToActOn(t *testing.T) {
	s := richSnapshot()
	s.Paused, s.CPULimit = false, 0
	s.Oversubscribed = true
	var first string
	for _, sec := range []float64{7.8, 123.4, 4321} {
		s.Elapsed = session.Seconds(time.Duration(sec * float64(time.Second)))
		out := ansi.Strip(header(s, 80))
		if ansi.StringWidth(out) > 80 || !strings.Contains(out, "start 2") || !strings.Contains(out, "OVERSUBSCRIBED") {
			t.Errorf("t=%v: %q", sec, out)
		}
		form := out[:strings.Index(out, "t=")]
		if first == "" {
			first = form
		} else if form != first {
			t.Errorf("t=%v: the form changed with t: %q, was %q", sec, form, first)
		}
	}
}

// TestHeadlineNotCut: on every scenario, at 80 columns, the headline's
// best size shows whole, even for the widest size name (crash's read
// "(2 work…" at 80x24).
func TestHeadlineNotCut(t *testing.T) {
	for _, sc := range scenarios.Names() {
		s := richSnapshot()
		s.Scenario = sc
		for i := range s.Sizes {
			s.Sizes[i].Scenario = sc
			s.Sizes[i].Workers = session.MaxWorkers - i
		}
		for _, l := range headlinePanel(s, 80) {
			if p := ansi.Strip(l); strings.Contains(p, "…") || ansi.StringWidth(p) > 80 {
				t.Errorf("%s: %q", sc, p)
			}
		}
	}
}

// oneSpace is s with each run of spaces made one: the detail view pads
// its figures to fixed widths (statCells), "failed        3".
func oneSpace(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// TestMetersTitleKeepsThroughput: the meters' title keeps "tasks/s" whole
// in a column of a two-column screen (72 wide at 120x40 cut it to "24…"),
// shortening its name instead, and keeps "loop and workers" where it fits.
func TestMetersTitleKeepsThroughput(t *testing.T) {
	s := richSnapshot()
	for _, w := range []int{70, 72, 80, 100} {
		head := ansi.Strip(metersPanel(s, w, 2)[0])
		if !strings.Contains(head, " tasks/s") || strings.Contains(head, "…") {
			t.Errorf("width %d: %q", w, head)
		}
		if full := w >= 80; full != strings.HasPrefix(head, "loop and workers") {
			t.Errorf("width %d: title %q", w, head)
		}
	}
}

// TestTasksPerSecondSaysItsWindow: tasks/s is a rate over the window, and
// the screen says so: "(5s)" after it in the stats cells always, and in
// the meters' title where it fits beside the full title.
func TestTasksPerSecondSaysItsWindow(t *testing.T) {
	s := richSnapshot()
	s.Window = session.Seconds(5 * time.Second)
	if !slices.ContainsFunc(statCells(s), func(c string) bool { return strings.HasSuffix(c, " tasks/s (5s)") }) {
		t.Errorf("stats cells %q: no tasks/s (5s)", statCells(s))
	}
	if head := ansi.Strip(metersPanel(s, 100, 2)[0]); !strings.Contains(head, " tasks/s (5s) ") {
		t.Errorf("meters title at 100 wide: %q", head)
	}
}

// The header says which pool is in force: PRIORITY with priority workers,
// nothing without.
func TestHeaderSaysPriority(t *testing.T) {
	s := richSnapshot()
	for _, w := range []int{200, 80} {
		if out := ansi.Strip(header(s, w)); strings.Contains(out, "PRIO") {
			t.Errorf("width %d: PRIO shown with plain workers: %q", w, out)
		}
	}
	s.Priority = true
	if out := ansi.Strip(header(s, 200)); !strings.Contains(out, "PRIORITY") {
		t.Errorf("no PRIORITY with priority workers: %q", out)
	}
}
