package session

import (
	"encoding/json"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/sysinfo"
)

// fakeMachine is a machine whose others take rate CPUs, on clk's time.
type fakeMachine struct {
	clk  clock.Clock
	cpus int

	mu     sync.Mutex
	reads  int     // ReadMachine calls
	rate   float64 // CPUs others take now
	others time.Duration
	last   time.Time
}

func (f *fakeMachine) ReadMachine() sysinfo.MachineSample {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	return f.readLocked()
}

func (f *fakeMachine) readLocked() sysinfo.MachineSample {
	now := f.clk.Now()
	if !f.last.IsZero() {
		f.others += time.Duration(f.rate * float64(now.Sub(f.last)))
	}
	f.last = now
	return sysinfo.MachineSample{At: now, Others: f.others, CPUs: f.cpus, Known: true}
}

// set makes others take rate CPUs from now.
func (f *fakeMachine) set(rate float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.readLocked()
	f.rate = rate
}

// TestRowsKnowTheBusyMachine: on a fake machine, others taking 2 of 2
// CPUs while 1 worker is held and none while 2 are: the snapshot says
// about 2 CPUs and busy then, about 0 after; the 1-worker row is marked
// busy with about 2 CPUs of others, the 2-worker row clean, in the rows
// and in the JSON. A sample reads the machine once.
func TestRowsKnowTheBusyMachine(t *testing.T) {
	clk := clock.NewFake(time.Now())
	fm := &fakeMachine{clk: clk, cpus: 2, rate: 2}
	s := newSession(t, Config{Scenario: "stall", Workers: 1, Interval: 250 * time.Millisecond, Clock: clk, Machine: fm})
	step := func(n int) Snapshot {
		t.Helper()
		for range n {
			want := s.Snapshot().Elapsed + Seconds(250*time.Millisecond)
			clk.Advance(250 * time.Millisecond)
			waitFor(t, "the next sample", func() bool { return s.Snapshot().Elapsed >= want })
		}
		return s.Snapshot()
	}
	busy := step(7)
	fm.mu.Lock()
	before := fm.reads
	fm.mu.Unlock()
	busy = step(1)
	fm.mu.Lock()
	if n := fm.reads - before; n != 1 {
		t.Errorf("the machine read %d times for one sample; want once (the row's others and others_cpus of one reading)", n)
	}
	fm.mu.Unlock()
	if v := float64(busy.OthersCPUs); math.Abs(v-2) > 0.5 || !busy.MachineBusy || busy.OthersOf != 2 {
		t.Fatalf("others %v of %d, busy %v: want about 2 of 2, busy", v, busy.OthersOf, busy.MachineBusy)
	}
	if err := s.Apply(Action{Kind: SetWorkers, N: 2}); err != nil {
		t.Fatal(err)
	}
	fm.set(0)
	snap := step(8)
	if snap.OthersCPUs > 0.1 || snap.MachineBusy {
		t.Errorf("after the loops: others %v, busy %v: want about 0, quiet", snap.OthersCPUs, snap.MachineBusy)
	}
	one, two := rowOf(t, snap.Sizes, "stall", 1), rowOf(t, snap.Sizes, "stall", 2)
	if v := one.OthersCPUs(); !one.MachineBusy || math.Abs(v-2) > 0.5 {
		t.Errorf("1-worker row: others %v, busy %v: want about 2, busy", v, one.MachineBusy)
	}
	if v := two.OthersCPUs(); two.MachineBusy || v > 0.1 {
		t.Errorf("2-worker row: others %v, busy %v: want about 0, clean", v, two.MachineBusy)
	}
	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Others *float64 `json:"others_cpus"`
		Sizes  []SizeJSON
	}
	if err := json.Unmarshal(b, &j); err != nil || j.Others == nil {
		t.Fatalf("JSON: %v %s", err, b)
	}
	for _, r := range j.Sizes {
		if r.OthersCPUs == nil || r.MachineBusy != (r.Workers == 1) {
			t.Errorf("JSON row %d: others %v busy %v", r.Workers, r.OthersCPUs, r.MachineBusy)
		}
	}
}
