package sweep

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/offtop/offtop/internal/session"
)

func TestParseRepeat(t *testing.T) {
	for _, good := range []string{"1", "3", "100"} {
		if _, err := ParseRepeat(good); err != nil {
			t.Errorf("ParseRepeat(%q) = %v", good, err)
		}
	}
	for _, bad := range []string{"0", "-1", "abc", "1000", "", "2.5"} {
		if _, err := ParseRepeat(bad); !errors.Is(err, ErrRepeat) {
			t.Errorf("ParseRepeat(%q) = %v, want ErrRepeat", bad, err)
		}
	}
}

// TestScheduleInterleaves: every size once, then again, K times.
func TestScheduleInterleaves(t *testing.T) {
	if got := Schedule(3, 3); !slices.Equal(got, []int{0, 1, 2, 0, 1, 2, 0, 1, 2}) {
		t.Errorf("Schedule(3, 3) = %v", got)
	}
	if got := Schedule(2, 1); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("Schedule(2, 1) = %v", got)
	}
}

func run(w int, tput, head float64) Row {
	h := head
	return Row{Workers: w, ThroughputPerS: tput, Balanced: true, Extra: map[string]*float64{},
		Size: session.SizeJSON{Workers: w, ThroughputPerS: tput, HeadlineP99MS: &h, HeldS: 5}}
}

// TestCombineMediansAndFlags: a row is the median of its runs, with
// min and max, and is flagged when tasks/s or the headline spreads over
// 10% of the median, not at 10% or under.
func TestCombineMediansAndFlags(t *testing.T) {
	steady := combine([]Row{run(2, 100, 50), run(2, 105, 52), run(2, 96, 51)}, nil)
	if steady.ThroughputPerS != 100 || *steady.Size.HeadlineP99MS != 51 || steady.Repeats != 3 {
		t.Errorf("medians: %+v", steady)
	}
	if sp := steady.Spread["throughput_per_s"]; sp.Min != 96 || sp.Max != 105 || sp.Median != 100 {
		t.Errorf("spread %+v", sp)
	}
	if len(steady.Flags) != 0 { // 9% and 4%
		t.Errorf("flags %v", steady.Flags)
	}
	edge := combine([]Row{run(2, 100, 50), run(2, 110, 50), run(2, 100, 50)}, nil) // exactly 10%
	if len(edge.Flags) != 0 {
		t.Errorf("10%% flagged: %v", edge.Flags)
	}
	noisy := combine([]Row{run(2, 100, 50), run(2, 120, 40), run(2, 90, 50)}, nil)
	if !slices.Equal(noisy.Flags, []string{"tasks/s 30%", "headline p99 20%"}) {
		t.Errorf("flags %v", noisy.Flags)
	}
	one := combine([]Row{run(1, 100, 50)}, nil)
	if one.lo != nil || len(one.Flags) != 0 {
		t.Errorf("a single run has a range: %+v", one)
	}
	var b bytes.Buffer
	r := Result{Scenario: "count", Repeat: 3, Rows: []Row{steady, noisy}}
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3 runs each", "100 (96-105)", "51 (50-52)", "! spread tasks/s 30% headline p99 20%"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "(96-105)") && strings.Contains(l, "spread") {
			t.Errorf("steady row flagged: %s", l)
		}
	}
	if strings.Contains(b.String(), "stopped early") {
		t.Errorf("a full sweep says it stopped early:\n%s", b.String())
	}
	b.Reset()
	r.Rows = append(r.Rows, one) // a sweep stopped after one run of a size
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "up to 3 runs each (stopped early)") {
		t.Errorf("a stopped sweep claims 3 runs each:\n%s", b.String())
	}
}

// TestCombineAnswers: ok only when every run's answer was ok; balanced
// only when every run was.
func TestCombineAnswers(t *testing.T) {
	yes, no := true, false
	a, b := run(1, 10, 1), run(1, 10, 1)
	a.AnswerOK, b.AnswerOK, b.Balanced = &yes, &no, false
	c := combine([]Row{a, b}, nil)
	if c.AnswerOK == nil || *c.AnswerOK || c.Balanced {
		t.Errorf("answer %v balanced %v", c.AnswerOK, c.Balanced)
	}
	if *a.AnswerOK != true {
		t.Error("combine wrote into a run")
	}
}
