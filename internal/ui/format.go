package ui

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/hist"
)

// fit returns s cut (with …) or padded with spaces to exactly w cells. It is
// ANSI-aware: escape sequences take no cells and are never split.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := cellWidth(s)
	if n > w {
		s = ansi.Truncate(s, w, "…")
		n = cellWidth(s)
	}
	if n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// cut returns s cut (with …) to at most w cells, not padded.
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if cellWidth(s) > w {
		return ansi.Truncate(s, w, "…")
	}
	return s
}

// fmtNum formats a figure with about two significant digits: 0.12, 3.4,
// 12, 120, 1200. Whole numbers print whole.
func fmtNum(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case v == 0:
		return "0"
	case a >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case a < 0.001:
		return "<.001" // under a microsecond in ms; keeps table cells 6 wide
	case a < 0.01:
		return fmt.Sprintf("%.3f", v)
	case a < 1:
		return fmt.Sprintf("%.2f", v)
	case a < 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

// ms converts a duration to milliseconds for the screen.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fmtMs formats a duration in ms with fmtNum.
func fmtMs(d time.Duration) string { return fmtNum(ms(d)) }

// fmtDur is Span, for this package's own use.
func fmtDur(d time.Duration) string { return Span(d) }

// Span formats a window or span compactly: 5s, 1.5s, 250ms, 2m, 1m30s;
// "0s" for d <= 0. The dashboard and the exit summary both use it.
func Span(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// fmtSeconds formats seconds with one decimal: 12.3s.
func fmtSeconds(sec float64) string { return fmt.Sprintf("%.1fs", sec) }

// fmtPct formats a 0..1 share as a whole percentage, clamped to 0..100;
// NaN (unknown) as n/a.
func fmtPct(share float64) string {
	if math.IsNaN(share) {
		return " n/a" // unknown
	}
	return fmt.Sprintf("%3.0f%%", clamp01(share)*100)
}

func clamp01(v float64) float64 {
	switch {
	case math.IsNaN(v) || v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

// summaryCells formats p50, p90, p99, p99.9, max of s in ms; all "n/a"
// when s holds no data (Count 0).
func summaryCells(s hist.Summary) [5]string {
	if s.Count == 0 {
		return [5]string{"n/a", "n/a", "n/a", "n/a", "n/a"}
	}
	return [5]string{fmtMs(s.P50), fmtMs(s.P90), fmtMs(s.P99), fmtMs(s.P999), fmtMs(s.Max)}
}

// fmtCount formats a count compactly within 7 cells: 123, 12345, 1.2M.
func fmtCount(n int64) string {
	switch {
	case n < 1e7:
		return fmt.Sprintf("%d", n)
	case n < 1e10:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	default:
		return fmt.Sprintf("%.1fG", float64(n)/1e9)
	}
}

// wordwrap wraps plain or styled text to w cells, cutting words longer than w.
func wordwrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	return strings.Split(ansi.Wrap(s, w, ""), "\n")
}

// appendBlock appends exactly n lines of exactly w cells to out: block's
// lines fitted to w, cut after n, padded with blank lines up to n.
func appendBlock(out, block []string, n, w int) []string {
	for i := 0; i < n; i++ {
		l := ""
		if i < len(block) {
			l = block[i]
		}
		out = append(out, fit(l, w))
	}
	return out
}

// cellWidth is the cells s takes on screen, escape sequences aside
// (ansi.StringWidth), remembered: most lines of a frame are the last
// frame's, and measuring one walks its grapheme clusters, half the time
// a frame took to format.
func cellWidth(s string) int { return widths.get(s, ansi.StringWidth) }

// maxWidths bounds the strings cellWidth remembers: a few frames' lines
// and cells.
const maxWidths = 1024

// widths is cellWidth's memory.
var widths = newMemo[string, int](maxWidths)

// memo remembers the results of a pure function, at most limit of them: it
// is emptied when full. mu guards m (Render may run on any goroutine).
type memo[K comparable, V any] struct {
	mu    sync.Mutex
	m     map[K]V
	limit int
}

func newMemo[K comparable, V any](limit int) *memo[K, V] {
	return &memo[K, V]{m: map[K]V{}, limit: limit}
}

// get is f(k), from memory when k was asked before; f runs unlocked.
func (c *memo[K, V]) get(k K, f func(K) V) V {
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = f(k)
	c.mu.Lock()
	if len(c.m) >= c.limit {
		clear(c.m)
	}
	c.m[k] = v
	c.mu.Unlock()
	return v
}

// fixedInt is n right-aligned in exactly w cells (w >= 4): whole when it
// fits, else with an SI suffix (12k, 1.2M, 340G), so a figure's growth
// never pushes the label after it.
func fixedInt(n int64, w int) string {
	s := fmt.Sprintf("%d", n)
	if len(s) > w {
		v := float64(n)
		for _, u := range []struct {
			div float64
			sfx string
		}{{1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}} {
			for prec := 1; prec >= 0; prec-- {
				s = fmt.Sprintf("%.*f%s", prec, v/u.div, u.sfx)
				if len(s) <= w {
					break
				}
			}
			if len(s) <= w {
				break
			}
		}
	}
	return fmt.Sprintf("%*s", w, s)
}

// fixedNum is fmtNum right-aligned in exactly w cells; a figure too long
// for w goes to fixedInt's SI form.
func fixedNum(v float64, w int) string {
	s := fmtNum(v)
	if len(s) > w && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return fixedInt(int64(math.Round(v)), w)
	}
	return fmt.Sprintf("%*s", w, s)
}

// fixedMiB is a size in MiB (2^20 bytes), right-aligned in 6 cells and
// labelled MiB; in GiB (2^30) from 100000 MiB.
func fixedMiB(mib float64) string {
	switch {
	case mib < 1000:
		return fmt.Sprintf("%6.1f MiB", mib)
	case mib < 100000:
		return fmt.Sprintf("%6.0f MiB", mib)
	}
	return fmt.Sprintf("%6.0f GiB", mib/1024)
}
