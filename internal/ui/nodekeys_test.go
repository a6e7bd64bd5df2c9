package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/session"
)

// nodeLine is a Node.js program's agent's line as it travels, workers at
// 1 or none, taking acts (its "actions").
func nodeLine(t *testing.T, workers int, acts string) session.Snapshot {
	t.Helper()
	busy := `[]`
	if workers == 1 {
		busy = `[0.5]`
	}
	line := `{"schema":1,"t_s":9,"scenario":"server.js","gomaxprocs":2,"num_cpu":2,"gomaxprocs_source":"node",` +
		`"load":"the program's own","extra":{"libuv_threads":4},"workers":` + string(rune('0'+workers)) + `,"worker_busy":` + busy + `,"actions":` + acts + `}`
	var d session.Decoder
	s, err := d.Snapshot([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	s.Remote = "127.0.0.1:7071"
	return s
}

// TestNodeScreenOffersOnlyWhatItsAgentTakes: attached to a Node program,
// the footer, the ? screen and the hints offer only the keys of the
// actions its agent lists: no load keys, no a, no g/G; with no pool, no
// size keys either.
func TestNodeScreenOffersOnlyWhatItsAgentTakes(t *testing.T) {
	for _, c := range []struct {
		name, acts  string
		workers     int
		want, never []string
	}{
		{"pool", `["set_workers","add_workers","reset"]`, 1,
			[]string{"+/- workers", "0-9 size", "r reset", "load: the program's own"},
			[]string{"[ ] to change", "a auto", "GOMAXPROCS"}},
		{"no pool", `["reset"]`, 0,
			[]string{"r reset", "no workers: tasks run inline on the Loop (no pool here to resize)"},
			[]string{"[ ] to change", "a auto", "GOMAXPROCS", "+/-", "0-9", "press 1-9", "press 0-9"}},
	} {
		s := nodeLine(t, c.workers, c.acts)
		out := ansi.Strip(render(s, 100, 30, viewState{}))
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q on screen:\n%s", c.name, w, out)
			}
		}
		for _, n := range c.never {
			if strings.Contains(out, n) {
				t.Errorf("%s: %q on screen:\n%s", c.name, n, out)
			}
		}
		help := ansi.Strip(strings.Join(helpLines(s, 100), "\n"))
		keys, _, _ := strings.Cut(help, "reading the screen")
		for _, n := range []string{"GOMAXPROCS", "find the size", "less load", "next scenario"} {
			if strings.Contains(keys, n) {
				t.Errorf("%s: ? screen offers %q:\n%s", c.name, n, keys)
			}
		}
		if strings.Contains(keys, "add worker") != (c.workers == 1) || !strings.Contains(keys, "reset figures") {
			t.Errorf("%s: ? screen's keys:\n%s", c.name, keys)
		}
	}
}

// TestGoAttachedScreenKeepsItsKeys: an agent that lists no actions (the
// Go agent's lines) takes every ProgramActions key, as before.
func TestGoAttachedScreenKeepsItsKeys(t *testing.T) {
	s := session.Snapshot{Run: session.Run{Scenario: "svc"}, Status: session.Status{Load: "the program's own"},
		Pool: session.Pool{Workers: 2, WorkerBusy: session.Shares{0.5, 0.5}}, Link: session.Link{Remote: "127.0.0.1:7070"}}
	out := ansi.Strip(render(s, 100, 30, viewState{}))
	for _, w := range []string{"a auto", "g/G GOMAXPROCS", "+/- workers"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q on screen:\n%s", w, out)
		}
	}
	if strings.Contains(out, "[ ] to change") {
		t.Errorf("an attached program's load offers [ ]:\n%s", out)
	}
}
