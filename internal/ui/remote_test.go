package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/session"
)

// TestDisconnectedShowsNoFigures: attached and the program gone, the
// screen says so with the time, and shows no figure as if live.
func TestDisconnectedShowsNoFigures(t *testing.T) {
	s := session.Snapshot{
		Run:  session.Run{Scenario: "service"},
		Pool: session.Pool{Workers: 4, Submitted: 99},
		Link: session.Link{
			Remote:       "127.0.0.1:7070",
			Disconnected: time.Date(2026, 12, 1, 9, 12, 3, 0, time.Local),
		},
	}
	out := ansi.Strip(render(s, 100, 30, viewState{}))
	for _, want := range []string{"disconnected from 127.0.0.1:7070 at 09:12:03", "offtop attach 127.0.0.1:7070"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q on screen:\n%s", want, out)
		}
	}
	for _, stale := range []string{"workers 4", "sizes tried", "probe p99", "tab next"} {
		if strings.Contains(out, stale) {
			t.Errorf("%q on a disconnected screen:\n%s", stale, out)
		}
	}
	if n := len(strings.Split(out, "\n")); n != 30 {
		t.Errorf("%d lines, want 30", n)
	}
}

func TestAttachedFooterHasNoScenarioKeys(t *testing.T) {
	out := ansi.Strip(footer(100, viewState{}, true))
	if strings.Contains(out, "tab") || strings.Contains(out, "load") || !strings.Contains(out, "GOMAXPROCS") {
		t.Fatalf("attached footer: %q", out)
	}
}

// TestNoticeShown: attached to another process than the first, the
// dashboard says so on a line of its own, the screen still its height.
func TestNoticeShown(t *testing.T) {
	s := session.Snapshot{
		Run:  session.Run{Scenario: "service"},
		Pool: session.Pool{Workers: 2},
		Link: session.Link{Remote: "127.0.0.1:7070",
			Notice: "127.0.0.1:7070 is another process since 09:12:03: pid 42 (was pid 41): no token sent"},
	}
	out := ansi.Strip(render(s, 100, 30, viewState{errLine: "control refused"}))
	if !strings.Contains(out, "pid 42 (was pid 41): no token sent") || !strings.Contains(out, "control refused") {
		t.Errorf("no notice, or no error line:\n%s", out)
	}
	if n := len(strings.Split(out, "\n")); n != 30 {
		t.Errorf("%d lines, want 30", n)
	}
}
