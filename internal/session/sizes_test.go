package session

import (
	"slices"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/sysinfo"
)

// fakeClock is an injected clock and counter source for sizes.
type fakeClock struct {
	t    time.Time
	done int64
	cpu  time.Duration
}

func (c *fakeClock) now() time.Time                     { return c.t }
func (c *fakeClock) read() (int64, time.Duration, bool) { return c.done, c.cpu, true }
func (c *fakeClock) at(d time.Duration, done int64, cpu float64) {
	c.t = time.Unix(1000, 0).Add(d)
	c.done, c.cpu = done, time.Duration(cpu*float64(time.Second))
}

func rowOf(t *testing.T, rows []SizeRow, scen string, workers int) SizeRow {
	t.Helper()
	for _, r := range rows {
		if r.Scenario == scen && r.Workers == workers {
			return r
		}
	}
	t.Fatalf("no row %s/%d in %+v", scen, workers, rows)
	return SizeRow{}
}

// TestSizesHeldAndCountsFromTheClock: held time, completions and CPU per
// row come from the change times, the current row counted up to now.
func TestSizesHeldAndCountsFromTheClock(t *testing.T) {
	c := &fakeClock{}
	c.at(0, 0, 0)
	z := newSizes(c.now, c.read, 10*time.Millisecond, 5*time.Second)
	z.headline = scenarios.Headline // the registry\'s: server\'s ping
	z.enter(sizeKey{"server", 0, 2, false}, true)
	c.at(8*time.Second, 160, 8)
	z.settle(z.enter(sizeKey{"server", 1, 2, false}, false))
	c.at(16*time.Second, 400, 20)
	z.settle(z.enter(sizeKey{"server", 2, 2, false}, false))
	c.at(18*time.Second, 500, 23)
	z.settle(z.enter(sizeKey{"server", 1, 2, false}, false)) // back to 1: the same row
	c.at(20*time.Second, 560, 25)
	rows := z.snapshot(z.readMachine())
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(rows), rows)
	}
	for _, w := range []struct {
		workers int
		held    time.Duration
		done    int64
		cpu     float64
		cur     bool
	}{{0, 8 * time.Second, 160, 8, false}, {1, 10 * time.Second, 300, 14, true}, {2, 2 * time.Second, 100, 3, false}} {
		r := rowOf(t, rows, "server", w.workers)
		if r.Held != w.held || r.Completed != w.done || r.CPUSeconds != w.cpu || r.Current != w.cur {
			t.Errorf("row %d: held %v done %d cpu %v current %v, want %v %d %v %v",
				w.workers, r.Held, r.Completed, r.CPUSeconds, r.Current, w.held, w.done, w.cpu, w.cur)
		}
	}
	if got := rowOf(t, rows, "server", 1).ThroughputPerS(); got != 30 {
		t.Errorf("row 1 throughput %v, want 30", got)
	}
	if got := rowOf(t, rows, "server", 1).CPUPerWall(); got != 1.4 {
		t.Errorf("row 1 CPU/wall %v, want 1.4", got)
	}
}

// TestSizesFileByStart: an observation belongs to the row in force when it
// began, if no other row came into force before it ended; one that began
// after a change but before the Loop drained the size before, or that
// spans a change, counts in no row (Unsettled of the row it began in).
func TestSizesFileByStart(t *testing.T) {
	c := &fakeClock{}
	c.at(0, 0, 0)
	z := newSizes(c.now, c.read, 10*time.Millisecond, 5*time.Second)
	z.headline = scenarios.Headline // the registry\'s: server\'s ping
	z.enter(sizeKey{"server", 0, 2, false}, true)
	c.at(time.Second, 0, 0)
	z.observeHeadline(800 * time.Millisecond) // 0.2s-1s: inline's
	c.at(8*time.Second, 0, 0)
	st := z.enter(sizeKey{"server", 1, 2, false}, false)
	c.at(8200*time.Millisecond, 0, 0)
	z.observeHeadline(700 * time.Millisecond) // 7.5s-8.2s: spans the change, no row
	z.observeHeadline(100 * time.Millisecond) // began at 8.1s, before the drain: no row
	c.at(8300*time.Millisecond, 0, 0)
	z.settle(st)
	c.at(9*time.Second, 0, 0)
	z.observeHeadline(5 * time.Millisecond)
	z.observeHeadline(900 * time.Millisecond) // began at 8.1s: still unsettled
	rows := z.snapshot(z.readMachine())
	r0, r1 := rowOf(t, rows, "server", 0), rowOf(t, rows, "server", 1)
	if r0.Headline.Count != 1 || r0.Unsettled != 1 || r1.Headline.Count != 1 || r1.Unsettled != 2 {
		t.Errorf("counts: inline %d (unsettled %d), 1 worker %d (unsettled %d); want 1 (1), 1 (2)",
			r0.Headline.Count, r0.Unsettled, r1.Headline.Count, r1.Unsettled)
	}
	if r1.Headline.Max > 6*time.Millisecond || r0.Headline.Max < 790*time.Millisecond {
		t.Errorf("1 worker max %v, inline max %v", r1.Headline.Max, r0.Headline.Max)
	}
	if r0.HeadlineName != "ping" {
		t.Errorf("headline name %q", r0.HeadlineName)
	}
}

// TestSizesProbeSpanningAChangeInNoRow: at 1 worker a probe tick falls due
// just before 0 is pressed, and the Loop runs the first inline task before
// it: its 114ms is the inline size's doing, so it counts in neither row,
// nor does an observation that spans 1 -> 2 -> 1 workers; a tick due and
// run within 1 worker's stretch after a pause counts there.
func TestSizesProbeSpanningAChangeInNoRow(t *testing.T) {
	c := &fakeClock{}
	c.at(0, 0, 0)
	z := newSizes(c.now, c.read, 10*time.Millisecond, 5*time.Second)
	z.headline = scenarios.Headline
	one, inline, two := sizeKey{"server", 1, 2, false}, sizeKey{"server", 0, 2, false}, sizeKey{"server", 2, 2, false}
	z.enter(one, true)
	c.at(3*time.Second, 0, 0)
	z.observeProbe(time.Millisecond)
	z.enter(inline, true)
	c.at(3113*time.Millisecond, 0, 0)
	z.observeProbe(114 * time.Millisecond) // due at 2.999s, under 1 worker
	c.at(4*time.Second, 0, 0)
	z.enter(one, true)
	c.at(5*time.Second, 0, 0)
	z.pause(true)
	c.at(5100*time.Millisecond, 0, 0)
	z.pause(false)
	c.at(5200*time.Millisecond, 0, 0)
	z.observeProbe(300 * time.Millisecond) // 4.9s-5.2s: across a pause, 1 worker's
	z.enter(two, true)
	c.at(5300*time.Millisecond, 0, 0)
	z.enter(one, true)
	c.at(5400*time.Millisecond, 0, 0)
	z.observeProbe(250 * time.Millisecond) // 5.15s-5.4s: 1, 2, 1 workers
	r1, r0 := rowOf(t, z.snapshot(z.readMachine()), "server", 1), rowOf(t, z.snapshot(z.readMachine()), "server", 0)
	// 1ms late: 1 sample; 300ms late at 10ms resolution: 30 (corrected).
	if r1.Probe.Count != 31 || r1.Unsettled != 2 || r1.Probe.Max < 299*time.Millisecond {
		t.Errorf("1 worker: probe count %d max %v, unsettled %d; want 31, 300ms, 2", r1.Probe.Count, r1.Probe.Max, r1.Unsettled)
	}
	if r0.Probe.Count != 0 || r0.Unsettled != 0 {
		t.Errorf("inline: probe count %d, unsettled %d; want 0, 0", r0.Probe.Count, r0.Unsettled)
	}
}

// TestSizesProbeCorrected: a probe sample 100ms late at 10ms resolution
// counts the ten samples the stalled probe missed; stall's headline is its
// probe.
func TestSizesProbeCorrected(t *testing.T) {
	c := &fakeClock{}
	c.at(0, 0, 0)
	z := newSizes(c.now, c.read, 10*time.Millisecond, 5*time.Second)
	z.headline = scenarios.Headline // the registry\'s: server\'s ping
	z.enter(sizeKey{"stall", 1, 2, false}, true)
	c.at(time.Second, 0, 0)
	z.observeProbe(100 * time.Millisecond)
	r := rowOf(t, z.snapshot(z.readMachine()), "stall", 1)
	if r.Probe.Count != 10 {
		t.Errorf("probe count %d, want 10 (corrected)", r.Probe.Count)
	}
	if r.Headline != r.Probe || r.HeadlineName != "probe" {
		t.Errorf("stall's headline %+v %q, want the probe", r.Headline, r.HeadlineName)
	}
}

// TestSizesClearAndScenarios: r forgets the current scenario's rows only;
// another scenario's rows survive and come back.
func TestSizesClearAndScenarios(t *testing.T) {
	c := &fakeClock{}
	c.at(0, 0, 0)
	z := newSizes(c.now, c.read, 10*time.Millisecond, 5*time.Second)
	z.headline = scenarios.Headline // the registry\'s: server\'s ping
	z.enter(sizeKey{"server", 0, 2, false}, true)
	c.at(2*time.Second, 0, 0)
	z.enter(sizeKey{"count", 0, 2, false}, true)
	c.at(3*time.Second, 0, 0)
	z.enter(sizeKey{"count", 1, 2, false}, true)
	c.at(4*time.Second, 0, 0)
	z.clear("count", sizeKey{"count", 1, 2, false})
	c.at(5*time.Second, 0, 0)
	rows := z.snapshot(z.readMachine())
	if len(rows) != 2 || rows[0].Scenario != "server" || rows[0].Held != 2*time.Second ||
		rows[1].Scenario != "count" || rows[1].Workers != 1 || rows[1].Held != time.Second || !rows[1].Current {
		t.Errorf("after r on count: %+v", rows)
	}
	k, changed := z.withGOMAXPROCS(1)
	if !changed || k != (sizeKey{"count", 1, 1, false}) {
		t.Errorf("withGOMAXPROCS(1) = %v %v", k, changed)
	}
	if _, changed := z.withGOMAXPROCS(2); changed {
		t.Error("withGOMAXPROCS(2) changed at GOMAXPROCS 2")
	}
}

// TestSessionCarriesSizes: a real session's samples carry a row per size
// held, the current one marked, and the headless JSON has them as sizes.
func TestSessionCarriesSizes(t *testing.T) {
	s, step := stepped(t, Config{Scenario: "stall", Workers: 0})
	if err := s.Apply(Action{Kind: SetWorkers, N: 2}); err != nil {
		t.Fatal(err)
	}
	rs := step().Sizes
	if len(rs) != 2 || !rs[1].Current || rs[1].Workers != 2 || rs[0].Workers != 0 {
		t.Fatalf("the sample after the resize: sizes %+v, want 0 then 2 (current)", rs)
	}
	if j0, j1 := rs[0].JSON(), rs[1].JSON(); j0.Headline != "probe" || j0.HeldS < 0 || j1.HeldS <= 0 {
		t.Errorf("sizes %+v %+v", j0, j1)
	}
}

// TestResetClearsHistoryAndRows: r empties the charts' history and the
// scenario's size rows (one fresh row for the size in force); the pool
// size history follows the size.
func TestResetClearsHistoryAndRows(t *testing.T) {
	s, step := stepped(t, Config{Scenario: "stall", Workers: 1, Interval: 10 * time.Millisecond})
	if err := s.Apply(Action{Kind: SetWorkers, N: 2}); err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	for range 5 {
		snap = step()
	}
	if n := len(snap.WorkersHistory); n != 5 || snap.WorkersHistory[n-1] != 2 || len(snap.ProbeP99History) != n || len(snap.Sizes) != 2 {
		t.Fatalf("history before r: workers %v, probe %d points, %d rows", snap.WorkersHistory, len(snap.ProbeP99History), len(snap.Sizes))
	}
	if err := s.Apply(Action{Kind: Reset}); err != nil {
		t.Fatal(err)
	}
	snap = step()
	if len(snap.WorkersHistory) != 1 || len(snap.Sizes) != 1 || snap.Sizes[0].Workers != 2 || !snap.Sizes[0].Current {
		t.Errorf("after r: %d history points, sizes %+v", len(snap.WorkersHistory), snap.Sizes)
	}
}

// TestSizesPausedCountsNothing: while the load is paused the row in force
// gains no held time, completions, CPU or observations; a size entered
// while paused starts paused; resuming counts again from then.
func TestSizesPausedCountsNothing(t *testing.T) {
	c := &fakeClock{}
	c.at(0, 0, 0)
	z := newSizes(c.now, c.read, 10*time.Millisecond, 5*time.Second)
	z.headline = scenarios.Headline // the registry\'s: server\'s ping
	z.enter(sizeKey{"server", 1, 2, false}, true)
	c.at(2*time.Second, 40, 1)
	z.observeProbe(5 * time.Millisecond) // counts: the load is on
	z.pause(true)
	z.pause(true) // twice: nothing more
	c.at(3*time.Second, 41, 1.1)
	z.observeProbe(time.Millisecond) // paused: no row
	z.observeHeadline(time.Millisecond)
	z.settle(z.enter(sizeKey{"server", 2, 2, false}, false)) // entered paused
	c.at(6*time.Second, 45, 1.3)
	z.observeProbe(time.Millisecond)
	rows := z.snapshot(z.readMachine())
	if r := rowOf(t, rows, "server", 2); r.Held != 0 || r.Completed != 0 || r.CPUSeconds != 0 || r.Probe.Count != 0 || !r.Current {
		t.Errorf("row 2 entered paused: held %v done %d cpu %v probe count %d current %v, want nothing counted, current", r.Held, r.Completed, r.CPUSeconds, r.Probe.Count, r.Current)
	}
	z.pause(false)
	c.at(7*time.Second, 65, 1.8)
	z.observeProbe(2 * time.Millisecond) // began at 7s-2ms, after the resume at 6s: counts
	rows = z.snapshot(z.readMachine())
	one, two := rowOf(t, rows, "server", 1), rowOf(t, rows, "server", 2)
	if one.Held != 2*time.Second || one.Completed != 40 || one.CPUSeconds != 1 || one.Probe.Count == 0 {
		t.Errorf("row 1: held %v done %d cpu %v probe count %d, want 2s 40 1 and its one sample", one.Held, one.Completed, one.CPUSeconds, one.Probe.Count)
	}
	if two.Held != time.Second || two.Completed != 20 || two.Probe.Count == 0 || two.Headline.Count != 0 {
		t.Errorf("row 2 after resume: held %v done %d probe count %d headline count %d, want 1s 20, the probe sample after the resume, no headline", two.Held, two.Completed, two.Probe.Count, two.Headline.Count)
	}
	n1 := one.Probe.Count
	z.pause(true)
	c.at(9*time.Second, 70, 2)
	if r := rowOf(t, z.snapshot(z.readMachine()), "server", 1); r.Probe.Count != n1 {
		t.Errorf("row 1 probe count %d after a pause, want %d", r.Probe.Count, n1)
	}
	if r := rowOf(t, z.snapshot(z.readMachine()), "server", 2); r.Held != time.Second {
		t.Errorf("row 2 held %v paused again, want 1s", r.Held)
	}
}

// TestSizesClearNeverShowsNoRows: a reader during clear (r) sees the rows
// before it or the fresh one after, never none with none current. The
// reader here runs inside clear's own reading of the machine.
func TestSizesClearNeverShowsNoRows(t *testing.T) {
	c := &fakeClock{}
	c.at(0, 0, 0)
	z := newSizes(c.now, c.read, 10*time.Millisecond, 5*time.Second)
	z.headline = scenarios.Headline // the registry\'s: server\'s ping
	var inside bool
	var seen [][]SizeRow
	z.machine = func() sysinfo.MachineSample {
		if inside {
			inside = false // snapshot reads the machine too
			seen = append(seen, z.snapshot(z.readMachine()))
			inside = true
		}
		return sysinfo.MachineSample{}
	}
	z.enter(sizeKey{"stall", 1, 2, false}, true)
	c.at(time.Second, 10, 0.5)
	z.enter(sizeKey{"stall", 2, 2, false}, true)
	c.at(2*time.Second, 20, 1)
	inside = true
	z.clear("stall", sizeKey{"stall", 2, 2, false})
	inside = false
	if len(seen) == 0 {
		t.Fatal("no read during clear")
	}
	for _, rows := range seen {
		if !slices.ContainsFunc(rows, func(r SizeRow) bool { return r.Current }) {
			t.Fatalf("a read during clear saw rows %+v: none current", rows)
		}
	}
	if rows := z.snapshot(z.readMachine()); len(rows) != 1 || rows[0].Workers != 2 || !rows[0].Current || rows[0].Held != 0 {
		t.Fatalf("after clear: %+v, want the one fresh row of 2 workers", rows)
	}
}
