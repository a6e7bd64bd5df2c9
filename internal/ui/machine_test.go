package ui

import (
	"encoding/json"
	"math"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/shape"
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

// TestTwoBusyLoopsOnScreen: with two busy loops of our own beside a light
// scenario, the header and the JSON say others take about 2 CPUs (within
// 0.5; on 2 CPUs they can take no more, and offtop's own share is small),
// the row held then is marked busy, in the JSON and on screen. A test of
// what the screen says, on the real machine reading (/proc/stat).
func TestTwoBusyLoopsOnScreen(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() != 2 {
		t.Skip("needs Linux on 2 CPUs: two loops are all of it")
	}
	shape.Spin(t, 2)
	s, err := session.New(session.Config{Scenario: "stall", Workers: 1, Interval: 250 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap := testkit.Poll(t, "a sample 2.5s in", 0, s.Snapshot, func(s session.Snapshot) bool { return s.Elapsed.Seconds() >= 2.5 })
	if v := float64(snap.OthersCPUs); math.Abs(v-2) > 0.5 || !snap.MachineBusy {
		t.Errorf("others %.2f CPUs, busy %v: want about 2 (within 0.5), busy", v, snap.MachineBusy)
	}
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Others *float64           `json:"others_cpus"`
		Busy   bool               `json:"machine_busy"`
		Sizes  []session.SizeJSON `json:"sizes"`
	}
	if err := json.Unmarshal(b, &j); err != nil || j.Others == nil || math.Abs(*j.Others-2) > 0.5 || !j.Busy {
		t.Errorf("JSON others_cpus %v, machine_busy %v (%v)", j.Others, j.Busy, err)
	}
	if len(j.Sizes) != 1 || !j.Sizes[0].MachineBusy || j.Sizes[0].OthersCPUs == nil || math.Abs(*j.Sizes[0].OthersCPUs-2) > 0.5 {
		t.Errorf("JSON rows %+v: want the 1-worker row busy, others about 2", j.Sizes)
	}
	out := plain(snap, 100, 30, false)
	head := strings.SplitN(out, "\n", 2)[0]
	if !regexp.MustCompile(`! others (1\.[5-9]|2\.[0-5]) of 2 CPUs`).MatchString(head) {
		t.Errorf("header %q: want others about 2 of 2 CPUs, hot", head)
	}
	if !regexp.MustCompile(`(?m)^>[* ] +1 +[0-9.]+s! `).MatchString(out) || !strings.Contains(out, "s! held while others took") {
		t.Errorf("the row held beside the loops is not marked\n%s", out)
	}
}
