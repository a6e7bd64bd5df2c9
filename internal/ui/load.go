package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/offtop/offtop/internal/session"
)

// loadLateAfter is load.LateAfter: a send later than this behind its
// due time is the client's lateness.
const loadLateAfter = 5 * time.Millisecond

// loadPanel is the title and lines of the load offtop drives against an
// attached program (attach --load): per target its asked rate, the rate
// sent, the client's p99 (from each request's due time) beside the
// middleware's for the same route, their difference (the time outside
// the handler), errors and the client's own lateness; then a line per
// target that fails now (no answer over the window):
//
//	load  open loop, ms from due time: /ping=20/s,/fib?n=30=40/s ──────
//	target   asked sent/s client p99 handler p99 outside errors   late
//	/ping     20/s     20       1.20        0.03    1.17      0   0.12
//	! /ping: 12 unanswered (5s): connection refused
//
// late is the most the client sent a request behind its due time over
// the window (▲ past 5 ms: the client, not the service, was behind).
func loadPanel(lc *session.LoadClient, win string, eps []session.Endpoint, w int) (string, []string) {
	head := title("load", "open loop, ms from due time: "+lc.Spec, w)
	tw := len("target")
	for _, t := range lc.Targets {
		tw = max(tw, min(cellWidth(t.Target), 24))
	}
	widths := []int{6, 6, 10, 11, 7, 6, 6}
	// row lays out the cells right-aligned in widths, each padded before
	// its style so escapes take no width.
	row := func(target string, cells ...string) string {
		var b strings.Builder
		b.WriteString(fit(target, tw))
		for i, c := range cells {
			b.WriteString(" " + strings.Repeat(" ", max(widths[i]-cellWidth(c), 0)) + c)
		}
		return b.String()
	}
	lines := []string{theme.Faint.Render(row("target", "asked", "sent/s", "client p99", "handler p99", "outside", "errors", "late"))}
	var notices []string
	for _, t := range lc.Targets {
		client, handler, outside := "n/a", "n/a", ""
		if t.Latency.Count > 0 {
			client = fmtMs(t.Latency.P99)
		}
		if e, ok := routeOf(eps, t.Route); ok && e.Latency.Count > 0 {
			handler = fmtMs(e.Latency.P99)
			if t.Latency.Count > 0 {
				outside = fmtMs(max(t.Latency.P99-e.Latency.P99, 0))
			}
		}
		errs := fmt.Sprintf("%d", t.Errors)
		if t.ErrorsWindow > 0 {
			errs = markHot + errs
			notices = append(notices, theme.Hot.Render(fmt.Sprintf("%s %s: %d unanswered (%s): %s", markHot, t.Target, t.ErrorsWindow, win, t.Error)))
		}
		late := fmtMs(time.Duration(t.LateMax))
		if time.Duration(t.LateMax) > loadLateAfter {
			late = markWarm + late
		}
		l := row(t.Target, fmtNum(float64(t.AskedPerS))+"/s", fmtNum(float64(t.RatePerS)), client, handler, outside, errs, late)
		if t.ErrorsWindow > 0 {
			l = theme.Hot.Render(l)
		}
		lines = append(lines, l)
	}
	for i := range lines {
		lines[i] = cut(lines[i], w)
	}
	for _, n := range notices {
		lines = append(lines, cut(n, w))
	}
	return head, lines
}

// routeOf is the endpoint of route among eps; false when route is "" or
// none is.
func routeOf(eps []session.Endpoint, route string) (session.Endpoint, bool) {
	for _, e := range eps {
		if route != "" && e.Route == route {
			return e, true
		}
	}
	return session.Endpoint{}, false
}
