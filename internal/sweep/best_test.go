package sweep

import (
	"bytes"
	"strings"
	"testing"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sizing"
)

// attachedResult is an attached sweep of inline, 1, 2 and 4 workers
// with these /ping p99s and Loop p99s (ms), busy where marked, fitted as
// Run fits it.
func attachedResult(p99, loop []float64, busy []bool) Result {
	r := Result{Scenario: "service", GOMAXPROCS: 2, NumCPU: 2, DurationS: 5, Columns: attachKeys,
		Attach: &AttachJSON{Addr: "127.0.0.1:7070", Load: "/ping=50/s", Target: "/ping", Route: "/ping", Restored: true}}
	var obs []sizing.Obs
	for i, n := range []int{0, 1, 2, 4} {
		row := Row{Workers: n, ThroughputPerS: 80 + float64(n), Balanced: true, Extra: map[string]*float64{},
			Size: session.SizeJSON{Workers: n, HeldS: 5, ThroughputPerS: 80 + float64(n), Headline: "/ping",
				HeadlineP99MS: ptr(p99[i]), ProbeP99MS: ptr(loop[i]), MachineBusy: busy[i]}}
		r.Rows = append(r.Rows, row)
		obs = append(obs, row.obs())
	}
	f := sizing.Recommend(scenarios.RuleLatency, obs)
	r.Fit = &f
	return r
}

// TestAttachedBestIsThePick: in an attached sweep the best line, the *
// mark and R are one pick, the latency rule's, and the best line names
// each row it left out and why: a Loop p99 over the bound, or held busy
// while a clean row was within it. The fit line says inline is not
// fitted when it is why too few sizes were.
func TestAttachedBestIsThePick(t *testing.T) {
	for _, c := range []struct {
		name            string
		p99, loop       []float64
		busy            []bool
		marked, bestWas string
	}{
		{"only inline clean, its Loop late", []float64{315, 52.4, 60, 45.9}, []float64{226, 30, 40, 35}, []bool{false, true, true, true},
			"R 4", "best: lowest /ping p99 with the Loop's p99 under 50 ms -> 4 workers (45.9 ms, row R); left out: inline (Loop p99 226 ms)\n"},
		{"inline clean and within", []float64{315, 52.4, 60, 45.9}, []float64{20, 30, 40, 35}, []bool{false, true, true, true},
			"R inline", "best: lowest /ping p99 with the Loop's p99 under 50 ms -> inline (315 ms, row R); left out: 1, 2, 4 (held busy, s!, while a clean row is within)\n"},
	} {
		var b bytes.Buffer
		if err := attachedResult(c.p99, c.loop, c.busy).Write(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		starred := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, " *") {
				starred = l
			}
		}
		if !strings.Contains(starred, c.marked+" ") || !strings.Contains(out, c.bestWas) {
			t.Errorf("%s: want * on the row %q and the line %q:\n%s", c.name, c.marked, c.bestWas, out)
		}
		if want := "3 sizes of 1 or more workers, need 4 (inline is not fitted: it runs no pool)"; !strings.Contains(out, want) {
			t.Errorf("%s: fit lacks %q:\n%s", c.name, want, out)
		}
	}
}

// TestCombineBusyByMajority: a repeated row is busy (s!) when more than
// half its runs were, not as its first run was.
func TestCombineBusyByMajority(t *testing.T) {
	run := func(busy bool) Row {
		return Row{Workers: 1, Extra: map[string]*float64{}, Size: session.SizeJSON{Workers: 1, MachineBusy: busy}}
	}
	if combine([]Row{run(true), run(false), run(false)}, nil).Size.MachineBusy {
		t.Error("1 busy run of 3: the row is busy")
	}
	if !combine([]Row{run(false), run(true), run(true)}, nil).Size.MachineBusy {
		t.Error("2 busy runs of 3: the row is not busy")
	}
}

// TestAttachedNoRowsNamesTheTarget: an attached sweep stopped before its
// first row says it has no figure of the target's client p99, the figure
// its rows would have had, not of the Loop probe.
func TestAttachedNoRowsNamesTheTarget(t *testing.T) {
	r := Result{Scenario: "service", GOMAXPROCS: 2, NumCPU: 2, DurationS: 5, Columns: attachKeys, Interrupted: true,
		Attach: &AttachJSON{Addr: "127.0.0.1:7070", Load: "/ping=50/s", Target: "/ping", Route: "/ping", Restored: true}}
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	if want := "best: lowest /ping client p99 (no size with a headline figure)"; !strings.Contains(b.String(), want) {
		t.Errorf("no rows: want %q in\n%s", want, b.String())
	}
}
