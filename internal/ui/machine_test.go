package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestScreenSaysTheMachineIsBusy: with others taking 1.8 of 2 CPUs the
// header says so, marked hot; the row held then ends its held time in
// '!', the rule is stated under the table, and the pick is the clean row
// though the busy one reads lower; below a tenth of the CPUs the header
// says nothing of others.
func TestScreenSaysTheMachineIsBusy(t *testing.T) {
	s := richSnapshot()
	s.OthersCPUs, s.OthersOf, s.MachineBusy = 1.8, 2, true
	for i := range s.Sizes {
		if s.Sizes[i].Workers == 1 { // the lowest ping p99: busy
			s.Sizes[i].OthersKnown, s.Sizes[i].OthersSeconds, s.Sizes[i].OthersWall, s.Sizes[i].MachineBusy = true, 14, s.Sizes[i].Held, true
		}
	}
	for _, sz := range [][2]int{{80, 24}, {100, 30}, {160, 48}} {
		out := plain(s, sz[0], sz[1], false)
		checkFits(t, out, sz[0], sz[1])
		head := strings.SplitN(out, "\n", 2)[0]
		if !strings.Contains(head, "! others 1.8") {
			t.Errorf("%v: header %q does not say others take 1.8 CPUs, hot", sz, head)
		}
		wants := []string{"s! held while others took >25% of CPUs: not picked while a clean row exists", "pick: 2 workers, lowest ping p99 (57 ms"}
		if sz[0] > 80 { // 80x24 has room for 3 rows: the current and the pick first
			wants = append(wants, "  8s!  ")
		}
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %q\n%s", sz, want, out)
			}
		}
		if strings.Count(out, " *") != 1 || !strings.Contains(out, " *     2 ") {
			t.Errorf("%v: want one mark, on the 2-worker row\n%s", sz, out)
		}
	}
	if h := header(s, 160); !strings.Contains(h, theme.Hot.Render(markHot+" others 1.8 of 2 CPUs")) {
		t.Errorf("header %q: others not in the hot colour", h)
	}
	s.OthersCPUs, s.MachineBusy = 0.5, false
	if h := header(s, 160); !strings.Contains(h, theme.Warm.Render("others 0.5 of 2 CPUs")) {
		t.Errorf("header %q: 0.5 of 2 CPUs not warm", h)
	}
	s.OthersCPUs = 0.1
	if h := ansi.Strip(header(s, 160)); strings.Contains(h, "others") {
		t.Errorf("header %q: others shown at 0.1 of 2 CPUs", h)
	}
	s.Sizes, s.SuggestedRule = nil, "suggest 2 = cores"
	if out := plain(s, 100, 30, false); !strings.Contains(out, "pick: none yet; start at 2 workers by the CPU rule") {
		t.Errorf("no rows: the CPU rule is not said to be the start\n%s", out)
	}
}
