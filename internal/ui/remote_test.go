package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/internal/remote"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/pool"
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

// TestAttachedSizeZeroRefusedOnScreen: 0 pressed on a program whose pool
// has no inline path shows the agent's reason (its 422) on the error
// line, and the pool keeps its size.
func TestAttachedSizeZeroRefusedOnScreen(t *testing.T) {
	p, err := pool.New(pool.Options{Size: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dir := t.TempDir()
	a, err := agent.Listen("127.0.0.1:0", agent.Options{Name: "svc", Pool: p, Control: true,
		TokenDir: dir, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	files, err := filepath.Glob(filepath.Join(dir, "*.token")) // the agent's one token file
	if err != nil || len(files) != 1 {
		t.Fatalf("token files %v: %v", files, err)
	}
	tok, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	c, err := remote.Dial(a.Addr().String(), remote.Options{Token: strings.TrimSpace(string(tok))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m, _ := press(t, New(c), "0")
	m.width, m.height = 120, 30
	scr := ansi.Strip(m.View().Content)
	if !strings.Contains(scr, "! invalid action: size 0 refused: ") || !strings.Contains(scr, "pool.Options.Inline") {
		t.Fatalf("no reason for the refused size 0 on screen:\n%s", scr)
	}
	if strings.Contains(scr, "invalid action: invalid action") {
		t.Fatalf("the reason is said twice:\n%s", scr)
	}
	if n := p.Size(); n != 2 {
		t.Fatalf("pool at %d after a refused 0, want 2", n)
	}
}

// TestAttachedNamesItsProcess: attached, the header names the program's
// pid and since when; a program that replaced another on the address is
// "new", beside the pid it replaced, its rows are its own and the sizes
// panel says where the other's went; an idle pool reads IDLE, not PAUSED.
func TestAttachedNamesItsProcess(t *testing.T) {
	at := time.Date(2026, 12, 1, 20, 51, 3, 0, time.Local)
	s := richSnapshot()
	s.Scenario, s.Paused = "service", false
	s.Sizes = session.SizeRows{{Scenario: "service", Workers: 2, Held: 3 * time.Second, Current: true}}
	s.Link = session.Link{Remote: "127.0.0.1:7070", PID: 4242, Since: at}
	out := ansi.Strip(render(s, 140, 30, viewState{}))
	if !strings.Contains(out, "pid 4242 since 20:51:03") || strings.Contains(out, "new pid") {
		t.Errorf("first program: no pid and since, or said new:\n%s", out)
	}
	s.Earlier = []session.EarlierProgram{{PID: 4242, Since: at, Until: at.Add(65 * time.Second),
		Sizes: session.SizeRows{{Scenario: "service", Workers: 7, Held: 30 * time.Second}}}}
	s.PID, s.Since = 4243, at.Add(70*time.Second)
	out = ansi.Strip(render(s, 140, 30, viewState{}))
	for _, want := range []string{"new pid 4243 since 20:52:13 (was 4242)", "pid 4242's rows (to 20:52:08) kept apart, for the summary at exit"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q on screen:\n%s", want, out)
		}
	}
	if strings.Contains(out, "     30s") {
		t.Errorf("the earlier program's row on screen:\n%s", out)
	}
	s.Paused = true
	if out = ansi.Strip(header(s, 200)); !strings.Contains(out, "IDLE (rows not counting)") || strings.Contains(out, "PAUSED") {
		t.Errorf("idle attached header: %q", out)
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

// TestDisconnectedPageOfAMemberNeverRead: a member down from the start
// names no program, and one given up on says so instead of "reconnects".
func TestDisconnectedPageOfAMemberNeverRead(t *testing.T) {
	var s session.Snapshot
	s.Remote, s.Disconnected = "127.0.0.1:7070", time.Now()
	out := strings.Join(disconnectedBody(s, 100, 30), "\n")
	if strings.Contains(out, "()") || !strings.Contains(out, "nothing has answered there yet") || !strings.Contains(out, "reconnects") {
		t.Errorf("never read:\n%s", out)
	}
	s.Notice = "127.0.0.1:7070: not an offtop agent; not dialled again"
	out = strings.Join(disconnectedBody(s, 100, 30), "\n")
	if strings.Contains(out, "reconnects") || !strings.Contains(out, "not dialled again") {
		t.Errorf("given up on:\n%s", out)
	}
}
