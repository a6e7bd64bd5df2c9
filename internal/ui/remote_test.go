package ui

import (
	"regexp"
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

// TestOutOfRangeShownUnknown: a line from an attached program with a
// share of 1e308 and a CPU time of 1e308 is drawn with those figures as
// n/a (not 100%, not a 309-digit number) and a line saying how many were
// out of range; the screen keeps its size.
func TestOutOfRangeShownUnknown(t *testing.T) {
	line := `{"schema":1,"scenario":"service","workers":2,"num_cpu":2,"worker_busy":[1e308,0.5],"worker_oncpu":null,` +
		`"loop_busy":0.25,"cpu_percent":50,"cpu_seconds":1e308,"rss_bytes":1048576,"extra":{},"sizes":[]}`
	var d session.Decoder
	s, err := d.Snapshot([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	s.Remote = "127.0.0.1:7070"
	for _, v := range []viewState{{}, {detail: true}} {
		out := ansi.Strip(render(s, 100, 30, v))
		for _, want := range []string{"2 figures from 127.0.0.1:7070 were out of their range: shown as n/a"} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q on screen:\n%s", want, out)
			}
		}
		if strings.Contains(out, "e+308") || strings.Contains(out, "NaN") || strings.Contains(out, "100%") {
			t.Errorf("an out-of-range figure drawn as a figure:\n%s", out)
		}
		if n := len(strings.Split(out, "\n")); n != 30 {
			t.Errorf("%d lines, want 30", n)
		}
		if !v.detail && !regexp.MustCompile(`w0 +\[ +\] +n/a`).MatchString(out) {
			t.Errorf("w0's busy share not n/a:\n%s", out)
		}
	}
}
