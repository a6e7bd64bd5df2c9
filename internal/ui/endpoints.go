package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/offtop/offtop/internal/session"
)

// endpointsLine is the headline of an attached program that records its
// HTTP routes (the agent's middleware): each route's p99 over the window
// (n/a without a request in it) and its rate, the busiest first, as many
// as fit in w:
//
//	▶ endpoints p99 (5s)  /fib   0.94 ms 1443/s · /ping   0.01 ms 20/s
func endpointsLine(eps []session.Endpoint, win string, w int) string {
	head := theme.Title.Render("▶ endpoints p99") + fmt.Sprintf(" %-5s", "("+win+")")
	if len(eps) == 0 {
		return cut(head+"  "+theme.Faint.Render("no request yet"), w)
	}
	byRate := slices.Clone(eps)
	slices.SortStableFunc(byRate, func(a, b session.Endpoint) int { return cmp.Compare(b.RatePerS, a.RatePerS) })
	var b strings.Builder
	b.WriteString(head)
	for i, e := range byRate {
		sep := "  "
		if i > 0 {
			sep = " · "
		}
		cell := sep + e.Route + " " + theme.Figure.Render(fmt.Sprintf("%6s", summaryP99(e.Latency))) + " ms " + fmtNum(float64(e.RatePerS)) + "/s"
		if cellWidth(b.String())+cellWidth(cell) > w { // say how many did not fit
			if left := fmt.Sprintf(" +%d", len(byRate)-i); cellWidth(b.String())+len(left) <= w {
				b.WriteString(left)
			}
			break
		}
		b.WriteString(cell)
	}
	return cut(b.String(), w)
}
