package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/scenarios"
)

// TestReadoutValueFormatsFromUnit: a readout is formatted by the unit it
// was made with, not by its key (a key without a suffix still shows its
// unit; bytes are MiB, 2^20), and a label naming the unit keeps it once.
func TestReadoutValueFormatsFromUnit(t *testing.T) {
	for _, c := range []struct {
		r    scenarios.Readout
		want string
	}{
		{scenarios.Millis("lag", "lag", 2500000, true), "2.5 ms"},
		{scenarios.Num("rate", "arrivals", 40).In(scenarios.UnitPerSec), "40/s"},
		{scenarios.Num("fast", "/fast", 12).In(scenarios.UnitRPS), "12 rps"},
		{scenarios.Num("heap", "heap", 3<<20).In(scenarios.UnitBytes), "3 MiB"},
		{scenarios.Num("busy", "busy", 50).In(scenarios.UnitPercent), "50%"},
		{scenarios.Num("hold", "hold", 2).In(scenarios.UnitSeconds), "2 s"},
		{scenarios.Num("x_ms", "x", 7), "7"}, // a key's suffix alone is not a unit
		{scenarios.Num("fast_rps", "/fast rps", 9).In(scenarios.UnitRPS), "9"},
		{scenarios.NA("y_ms", "y").In(scenarios.UnitMS), "n/a"},
	} {
		if got := readoutValue(c.r); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}

// TestReadoutsNotCut: the newcomer's cuts on server at 100 columns, the
// load line's "[ ] to cha…" and "listening on 127.0.0.1…", and at 80 the
// load itself: the load is wrapped whole under the title, an address is
// whole in its cell, and every label keeps its column whatever the values.
func TestReadoutsNotCut(t *testing.T) {
	s := richSnapshot()
	s.Load = "on 127.0.0.1:33291: 2 closed-loop clients per endpoint, /ping every 50ms"
	var rs []scenarios.Readout
	for _, l := range []string{"ping p50", "ping p99", "ping max", "ping failures", "/fast", "/fast p99", "/slow", "/slow p99",
		"CPU/fast", "CPU/slow", "HTTP errors", "served /ping", "served /fast", "served /slow", "Loops", "worst Loop probe p99"} {
		rs = append(rs, scenarios.Millis(l, l, 1234567, true))
	}
	s.Readouts = append(rs, scenarios.Bool("ok", "answer ok", true), scenarios.Str("addr", "listening on", "127.0.0.1:33291"))
	for _, w := range []int{80, 100, 160} {
		g := newReadouts(s, w)
		text := ansi.Strip(strings.Join(append([]string{g.title}, g.lines...), "\n"))
		if strings.Contains(text, "…") || !strings.Contains(text, "127.0.0.1:33291") {
			t.Errorf("%d: cut:\n%s", w, text)
		}
		if got := strings.Join(strings.Fields(strings.ReplaceAll(text, "─", "")), " "); !strings.Contains(got, "load: "+s.Load) {
			t.Errorf("%d: the load is not whole:\n%s", w, text)
		}
		for _, l := range append([]string{g.title}, g.lines...) {
			if n := ansi.StringWidth(l); n > w {
				t.Errorf("%d: a line of %d cells: %q", w, n, ansi.Strip(l))
			}
		}
		// Other values, the same label columns.
		s2 := s
		s2.Readouts = append([]scenarios.Readout(nil), s.Readouts...)
		for i := range s2.Readouts[:16] {
			s2.Readouts[i] = scenarios.Millis(s2.Readouts[i].Key, s2.Readouts[i].Label, 5e9*time.Duration(i%2), i%3 != 0)
		}
		g2 := newReadouts(s2, w)
		for i := range g.lines {
			for _, r := range s.Readouts {
				a, b := strings.Index(ansi.Strip(g.lines[i]), r.Label+" "), strings.Index(ansi.Strip(g2.lines[i]), r.Label+" ")
				if a != b {
					t.Errorf("%d: label %q moved from %d to %d on line %d", w, r.Label, a, b, i)
				}
			}
		}
	}
}
