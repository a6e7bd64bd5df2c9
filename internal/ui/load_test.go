package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/session"
)

// TestLoadPanel: attached under --load, the screen shows each target's
// client p99 beside the middleware's p99 of its route and their
// difference, at 100x30 and 80x24 and in two columns; a target failing
// now gets a notice line with its cause.
func TestLoadPanel(t *testing.T) {
	s := richSnapshot()
	s.Remote, s.Scenario, s.Readouts = "127.0.0.1:7070", "service", nil
	s.Endpoints = []session.Endpoint{
		{Route: "/ping", RatePerS: 20, Latency: hist.Summary{P99: 20 * time.Millisecond, Count: 100}},
		{Route: "GET /fib", RatePerS: 40, Latency: hist.Summary{P99: 88 * time.Millisecond, Count: 200}},
	}
	s.LoadClient = &session.LoadClient{Spec: "/ping=20/s,/fib?n=30=40/s", Targets: []session.LoadTarget{
		{Target: "/ping", Route: "/ping", AskedPerS: 20, RatePerS: 20, Sent: 100, Latency: hist.Summary{P99: 900 * time.Millisecond, Count: 100}},
		{Target: "/fib?n=30", Route: "GET /fib", AskedPerS: 40, RatePerS: 39, Sent: 200, Latency: hist.Summary{P99: 95 * time.Millisecond, Count: 200},
			LateMax: session.Millis(12 * time.Millisecond)},
	}}
	for _, sz := range [][2]int{{100, 30}, {80, 24}, {140, 40}} {
		out := oneSpace(ansi.Strip(render(s, sz[0], sz[1], viewState{})))
		for _, want := range []string{"load open loop", "target asked sent/s client p99 handler p99 outside errors late", "/ping 20/s 20 900 20 880 0 0", "/fib?n=30 40/s 39 95 88 7 0 ▲12"} {
			if !strings.Contains(out, want) {
				t.Errorf("%dx%d: the screen lacks %q:\n%s", sz[0], sz[1], want, out)
			}
		}
		if strings.Contains(out, "unanswered") {
			t.Errorf("%dx%d: a notice with no error", sz[0], sz[1])
		}
	}
	s.LoadClient.Targets[0].Errors, s.LoadClient.Targets[0].ErrorsWindow, s.LoadClient.Targets[0].Error = 30, 12, "connection refused"
	out := oneSpace(ansi.Strip(render(s, 100, 30, viewState{})))
	if want := "! /ping: 12 unanswered (5s): connection refused"; !strings.Contains(out, want) {
		t.Errorf("failing: the screen lacks %q:\n%s", want, out)
	}
	s.LoadClient = nil
	if out := ansi.Strip(render(s, 100, 30, viewState{})); strings.Contains(out, "client p99") {
		t.Errorf("no --load: a load panel:\n%s", out)
	}
}
