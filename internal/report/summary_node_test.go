package report

import (
	"strings"
	"testing"

	"github.com/offtop/offtop/internal/session"
)

// TestSummaryNamesNodesParallelism: a Node.js program's exit summary says
// parallelism (os.availableParallelism), not GOMAXPROCS, as the header
// does; a Go program's keeps GOMAXPROCS.
func TestSummaryNamesNodesParallelism(t *testing.T) {
	for src, want := range map[string]string{"node": " parallelism 2, NumCPU 2", "runtime": " GOMAXPROCS 2, NumCPU 2"} {
		var sm Summary
		sm.Add(session.Snapshot{Run: session.Run{Scenario: "server.js"},
			Machine: session.Machine{GOMAXPROCS: 2, NumCPU: 2, GOMAXPROCSSource: src}, Link: session.Link{Remote: "127.0.0.1:7071"}})
		sm.Finish(0)
		if out := sm.String(); !strings.Contains(out, want) || src == "node" && strings.Contains(out, "GOMAXPROCS") {
			t.Errorf("%s: summary %q, want %q", src, out, want)
		}
	}
}

// TestNoPickOffersOnlyKeysThatWork: before any row the pick line offers
// 0-9 and a only where the program takes them.
func TestNoPickOffersOnlyKeysThatWork(t *testing.T) {
	for _, c := range []struct {
		acts []string
		want string
	}{
		{nil, "pick: none yet; 0-9 tries a size, a searches"},
		{[]string{"set_workers", "add_workers", "reset"}, "pick: none yet; 0-9 tries a size"},
		{[]string{"reset"}, "pick: none yet"},
	} {
		s := session.Snapshot{Actions: c.acts, Link: session.Link{Remote: "127.0.0.1:7071"}}
		if got := PickFor(s, Table{Best: -1}).Line; got != c.want {
			t.Errorf("actions %v: %q, want %q", c.acts, got, c.want)
		}
	}
}
