package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/session"
)

// featuredRoute is the route an attached dashboard features: s.Route
// (a route of s.Endpoints, or a load target's path, read as the route it
// is recorded under), else the load's first target's route, else the
// busiest route (the model keeps the first it features: Model.take);
// "" when the program records none.
func featuredRoute(s session.Snapshot) string {
	if r := s.Route; r != "" {
		if _, ok := routeOf(s.Endpoints, r); !ok && s.LoadClient != nil {
			for _, t := range s.LoadClient.Targets {
				if t.Target == r && t.Route != "" {
					return t.Route
				}
			}
		}
		return r // not seen yet: shown with n/a
	}
	if lc := s.LoadClient; lc != nil {
		for _, t := range lc.Targets {
			if t.Route != "" {
				return t.Route
			}
		}
	}
	best := ""
	var rate session.Rate = -1
	for _, e := range s.Endpoints {
		if e.Route != "unmatched" && e.RatePerS > rate {
			best, rate = e.Route, e.RatePerS
		}
	}
	return best
}

// nextRoute is the route after the featured one (with cur chosen) among
// s.Endpoints in their order, wrapping; cur when there is none.
func nextRoute(s session.Snapshot, cur string) string {
	if cur != "" {
		s.Route = cur
	}
	now := featuredRoute(s)
	var routes []string
	for _, e := range s.Endpoints {
		if e.Route != "unmatched" {
			routes = append(routes, e.Route)
		}
	}
	if len(routes) == 0 {
		return cur
	}
	return routes[(slices.Index(routes, now)+1)%len(routes)]
}

// clientOf is the load target recorded under route; nil when none is.
func clientOf(lc *session.LoadClient, route string) *session.LoadTarget {
	if lc == nil || route == "" {
		return nil
	}
	for i, t := range lc.Targets {
		if t.Route == route {
			return &lc.Targets[i]
		}
	}
	return nil
}

// endpointsLine is the headline of an attached program that records its
// HTTP routes (the agent's middleware): the featured route (featuredRoute;
// the e key cycles) with the middleware's p99 over the window and the
// rate it served (every client's requests), the load client's p99 after
// them under --load; then the other routes' p99 and rate, the busiest
// first, as many as fit in w, and "+N more" for those that do not:
//
//	▶ /ping p99 (5s)  server 0.05 ms 40/s  client 1.20 ms · /fib 0.94 ms 40/s +1 more
func endpointsLine(s session.Snapshot, win string, w int) string {
	eps := s.Endpoints
	if len(eps) == 0 {
		head := theme.Title.Render("▶ endpoints p99") + fmt.Sprintf(" %-5s", "("+win+")")
		return cut(head+"  "+theme.Faint.Render("no request yet"), w)
	}
	route := featuredRoute(s)
	e, _ := routeOf(eps, route)
	var b strings.Builder
	b.WriteString(theme.Title.Render("▶ "+route+" p99") + fmt.Sprintf(" %-5s", "("+win+")"))
	b.WriteString("  server " + theme.Figure.Render(fmt.Sprintf("%6s", summaryP99(e.Latency))) + " ms " + fmtNum(float64(e.RatePerS)) + "/s")
	if t := clientOf(s.LoadClient, route); t != nil {
		b.WriteString("  client " + theme.Figure.Render(fmt.Sprintf("%6s", summaryP99(t.Latency))) + " ms")
	}
	byRate := slices.DeleteFunc(slices.Clone(eps), func(x session.Endpoint) bool { return x.Route == route })
	slices.SortStableFunc(byRate, func(a, b session.Endpoint) int { return cmp.Compare(b.RatePerS, a.RatePerS) })
	for i, e := range byRate {
		cell := " · " + e.Route + " " + theme.Figure.Render(fmt.Sprintf("%6s", summaryP99(e.Latency))) + " ms " + fmtNum(float64(e.RatePerS)) + "/s"
		if cellWidth(b.String())+cellWidth(cell) > w { // say how many did not fit
			if left := fmt.Sprintf(" +%d more", len(byRate)-i); cellWidth(b.String())+len(left) <= w {
				b.WriteString(left)
			}
			break
		}
		b.WriteString(cell)
	}
	return cut(b.String(), w)
}

// routeP99 is a size row's p99 of route (its served figures) in ms, or
// n/a with none.
func routeP99(sm map[string]hist.Summary, route string) string {
	if v, ok := sm[route]; ok && v.Count > 0 {
		return fmtMs(v.P99)
	}
	return "n/a"
}
