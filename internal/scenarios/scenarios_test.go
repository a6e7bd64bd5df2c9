package scenarios_test

import (
	"slices"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/workload"
	"go.uber.org/goleak"
)

func readout(s session.Snapshot, key string) (scenarios.Readout, bool) {
	for _, r := range s.Readouts {
		if r.Key == key {
			return r, true
		}
	}
	return scenarios.Readout{}, false
}

// fakeSampling is a session on a fake clock (session.Config.Clock) that
// the test moves one Interval per sample it asks for: the session's
// schedule (its samples, their Elapsed) runs as fast as the samples are
// taken. The scenario keeps the real clock (Scenarios.Clock): its own
// load (pings, arrivals, bursts) comes at the rate it is meant to, not
// at the rate of the samples.
type fakeSampling struct {
	s     *session.Session
	clk   *clock.Fake
	every time.Duration
}

func newFakeSampling(t *testing.T, c session.Config) *fakeSampling {
	t.Helper()
	f := &fakeSampling{clk: clock.NewFake(time.Now()), every: c.Interval}
	c.Clock = f.clk
	if c.Scenarios.Clock == nil {
		c.Scenarios.Clock = clock.Real
	}
	s, err := session.New(c)
	if err != nil {
		t.Fatal(err)
	}
	f.s = s
	return f
}

// next moves the clock one Interval and returns the sample that wakes
// (the sampler waits for it before the previous sample is out), or false
// when timeout (real time) came first.
func (f *fakeSampling) next(timeout <-chan time.Time) (session.Snapshot, bool) {
	f.clk.Advance(f.every)
	select {
	case snap := <-f.s.Samples():
		return snap, true
	case <-timeout:
		return session.Snapshot{}, false
	}
}

// TestEachScenarioAnswersAndCleansUp runs every scenario through a real
// session for 2 s of the session's clock (a fake one, moved a sample at a
// time) and until its answer is known: the answer checks out, the pool's
// counts add up at every sample, and after Close none of its goroutines is
// left.
func TestEachScenarioAnswersAndCleansUp(t *testing.T) {
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			defer goleak.VerifyNone(t)
			f := newFakeSampling(t, session.Config{Scenario: name, Workers: 2, Scale: 0.05,
				Interval: 50 * time.Millisecond, Window: time.Second})
			s := f.s
			deadline := time.After(20 * time.Second)
			var last session.Snapshot
		loop:
			for {
				snap, ok := f.next(deadline)
				switch {
				case ok:
					if got := snap.Completed + snap.Failed + snap.TimedOut + snap.Running + snap.QueueDepth; !snap.Balanced() {
						t.Fatalf("counts do not add up: %d vs submitted %d", got, snap.Submitted)
					}
					last = snap
					for _, r := range snap.Readouts {
						if r.Unit != scenarios.UnitOf(r.Key) && !r.Bool && !r.Str {
							t.Errorf("readout %s is in %q, its key names %q", r.Key, r.Unit, scenarios.UnitOf(r.Key))
						}
					}
					if r, ok := readout(snap, "answer_ok"); ok && r.Known && time.Duration(snap.Elapsed) > 2*time.Second {
						break loop
					}
				default:
					break loop
				}
			}
			s.Close()
			r, ok := readout(last, "answer_ok")
			if !ok || !r.Known || r.Value != 1 {
				t.Errorf("answer_ok = %+v after %v", r, last.Elapsed)
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	names := scenarios.Names()
	if len(names) == 0 || names[0] != scenarios.Default {
		t.Fatalf("Names() = %v, want %s first", names, scenarios.Default)
	}
	for _, n := range names {
		if scenarios.Summary(n) == "" {
			t.Errorf("%s has no summary", n)
		}
		s, err := scenarios.New(n, scenarios.Config{})
		if err != nil || s.Name() != n || s.Look() == "" {
			t.Errorf("New(%q) = %v, %v", n, s, err)
		}
	}
	if _, err := scenarios.New("nope", scenarios.Config{}); err == nil {
		t.Error("unknown scenario: no error")
	}
}

// TestFlagTakersComeFromTheEntries: a flag only some scenarios read names
// them in the order of Names; a flag no entry lists names none.
func TestFlagTakersComeFromTheEntries(t *testing.T) {
	for flag, want := range map[string][]string{
		"loops":  {"server"},
		"listen": {"server", "io"},
		"jobs":   {"count"},
		"stall":  {"stall"},
		"scale":  nil,
	} {
		if got := scenarios.FlagTakers(flag); !slices.Equal(got, want) {
			t.Errorf("FlagTakers(%q) = %v, want %v", flag, got, want)
		}
	}
	for _, n := range scenarios.Names() {
		m, _ := scenarios.Lookup(n)
		for _, f := range m.Flags {
			if !slices.Contains(scenarios.FlagTakers(f), n) {
				t.Errorf("%s lists --%s, FlagTakers does not name it", n, f)
			}
		}
	}
}

// TestKnobsAreInTheTable: every knob a scenario's entry lists is in the
// table the key map reads (workload.AllKnobs), key for key, so the keys
// are bound with no scenario linked into the view.
func TestKnobsAreInTheTable(t *testing.T) {
	table := map[string]workload.Knob{}
	for _, k := range workload.AllKnobs() {
		table[k.Key] = k
	}
	for _, n := range scenarios.Names() {
		m, _ := scenarios.Lookup(n)
		for _, k := range m.Knobs {
			if got, ok := table[k.Key]; !ok || got.Help != k.Help || got.Name != k.Name {
				t.Errorf("%s's knob %+v: the table has %+v", n, k, got)
			}
		}
	}
}

// TestCatalogIsTheRegistry: the catalog a session reads describes each
// scenario as its entry does, and is the one registered.
func TestCatalogIsTheRegistry(t *testing.T) {
	if workload.Registered() != scenarios.Catalog {
		t.Fatal("the scenarios' catalog is not the registered one")
	}
	if c := scenarios.Catalog; c.Default() != scenarios.Default || !slices.Equal(c.Names(), scenarios.Names()) {
		t.Fatalf("catalog default %q names %v", c.Default(), c.Names())
	}
	for _, n := range scenarios.Names() {
		m, _ := scenarios.Lookup(n)
		in, ok := scenarios.Catalog.Info(n)
		if !ok || in.Headline != scenarios.Headline(n) || in.KeepsLoop != m.KeepsLoop || in.Workers != m.Workers || in.Sizing != scenarios.Sizing(n) {
			t.Errorf("%s: info %+v, entry %+v", n, in, m)
		}
	}
	if _, ok := scenarios.Catalog.Info("nope"); ok {
		t.Error("unknown name: ok")
	}
}
