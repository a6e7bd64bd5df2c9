package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/session"
)

// TestHeadlineShowsEndpoints: an attached program's routes are the
// headline: each one's p99 and rate, the busiest first (featured, with
// no route chosen and no load), n/a for a route
// with no request in the window, "+N" for those that do not fit, never
// wider than the screen; without endpoints the headline is the
// scenario's.
func TestHeadlineShowsEndpoints(t *testing.T) {
	s := richSnapshot()
	s.Remote, s.Scenario = "127.0.0.1:7070", "service"
	s.Endpoints = []session.Endpoint{
		{Route: "/fib", RatePerS: 40, Latency: hist.Summary{P99: 88 * time.Millisecond, Count: 200}},
		{Route: "/ping", RatePerS: 20, Latency: hist.Summary{P99: 1250 * time.Microsecond, Count: 100}},
		{Route: "unmatched"},
	}
	l1 := ansi.Strip(headlinePanel(s, 100)[0])
	for _, want := range []string{"▶ /fib p99 (5s) server 88 ms 40/s", "/ping 1.2 ms 20/s", "unmatched n/a ms 0/s"} {
		if !strings.Contains(oneSpace(l1), want) {
			t.Errorf("headline %q lacks %q", l1, want)
		}
	}
	if strings.Index(l1, "/fib") > strings.Index(l1, "/ping") {
		t.Errorf("headline %q: the busiest route is not first", l1)
	}
	narrow := ansi.Strip(headlinePanel(s, 50)[0])
	if !strings.Contains(narrow, "/fib") || !strings.Contains(narrow, "+2") || ansi.StringWidth(narrow) > 50 {
		t.Errorf("at 50 columns: %q, want /fib and +2 within 50", narrow)
	}
	s.Endpoints = []session.Endpoint{}
	if l := ansi.Strip(headlinePanel(s, 100)[0]); !strings.Contains(l, "no request yet") {
		t.Errorf("no route yet: %q", l)
	}
	s.Endpoints = nil
	if l := ansi.Strip(headlinePanel(s, 100)[0]); strings.Contains(l, "endpoints") {
		t.Errorf("no middleware: %q, want the scenario's headline", l)
	}
}
