package probe

import (
	"math"
	"runtime"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/testkit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// --- Loop ---

func TestLoopFIFO(t *testing.T) {
	l := NewLoop()
	defer l.Close()
	const n = 10000
	got := make([]int, 0, n)
	var wg sync.WaitGroup
	wg.Add(n)
	for i := range n {
		l.Post(func() {
			got = append(got, i) // only the Loop touches got
			wg.Done()
		})
	}
	wg.Wait()
	l.Do(func() {})
	for i, v := range got {
		if v != i {
			t.Fatalf("callback %d ran at position %d", v, i)
		}
	}
	if s := l.Stats(); s.Ran != n+1 || s.Queued != 0 || s.Panics != 0 {
		t.Fatalf("stats = %+v, want Ran %d, Queued 0, Panics 0", s, n+1)
	}
}

func TestLoopDoWaits(t *testing.T) {
	l := NewLoop()
	defer l.Close()
	ran := false
	l.Do(func() {
		for range 1000 { // a callback that is not over at once: the caller could run on
			runtime.Gosched()
		}
		ran = true
	})
	if !ran { // Do's return happens after fn: no race here
		t.Fatal("Do returned before fn ran")
	}
}

func TestLoopPanicCountedAndLoopSurvives(t *testing.T) {
	l := NewLoop()
	defer l.Close()
	l.Post(func() { panic("boom") })
	l.Post(func() { panic(nil) })
	l.Do(func() { panic("in Do") })   // recovered by the Loop, Do returns
	l.Do(func() { runtime.Goexit() }) // Do returns: the replacement goroutine closes its done
	ok := false
	l.Do(func() { ok = true })
	if !ok {
		t.Fatal("Loop did not run a callback after panics")
	}
	s := l.Stats()
	if s.Panics != 4 || s.Ran != 5 {
		t.Fatalf("stats = %+v, want Panics 4 (3 panics + Goexit), Ran 5", s)
	}
}

func TestLoopCloseDrainsQueued(t *testing.T) {
	l := NewLoop()
	release := make(chan struct{})
	l.Post(func() { <-release })
	const n = 100
	var mu sync.Mutex
	count := 0
	for range n {
		l.Post(func() { mu.Lock(); count++; mu.Unlock() })
	}
	if q := l.Stats().Queued; q < n {
		t.Fatalf("Queued = %d, want >= %d while the first callback blocks", q, n)
	}
	closed := make(chan struct{})
	go func() { l.Close(); close(closed) }()
	go l.Close() // concurrent second Close
	close(release)
	<-closed
	l.Close() // and a third, after the fact
	mu.Lock()
	defer mu.Unlock()
	if count != n {
		t.Fatalf("Close ran %d of %d queued callbacks", count, n)
	}
}

func TestLoopPostAfterCloseRuns(t *testing.T) {
	l := NewLoop()
	l.Close()
	done := make(chan struct{})
	l.Post(func() { close(done) })
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("fn posted after Close never ran")
	}
	l.Post(func() { panic("late") }) // must not crash the process
	testkit.WaitFor(t, "the late panic counted", 0, func() bool { return l.Stats().Panics == 1 })
	l.Do(func() {}) // Do after Close returns too
	if s := l.Stats(); s.Ran != 3 {
		t.Fatalf("Ran = %d, want 3", s.Ran)
	}
}

func TestLoopBusyIncludesInProgress(t *testing.T) {
	l := NewLoop()
	defer l.Close()
	started, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	defer free() // before Close, which waits for the callback, when the test fails
	l.Post(func() { close(started); <-release })
	l.Post(func() {})
	<-started
	t0 := time.Now()
	// Busy grows while the callback runs: it reaches 30ms before the
	// callback ends (a Busy that counted only finished callbacks stays 0).
	s := testkit.Poll(t, "Busy >= 30ms during the callback", 0, l.Stats, func(s LoopStats) bool { return s.Busy >= 30*time.Millisecond })
	if waited := time.Since(t0); s.Busy > waited+time.Second {
		t.Fatalf("Busy = %v, more than the %v the callback has run", s.Busy, waited)
	}
	if s.Ran != 0 || s.Queued != 1 {
		t.Fatalf("stats = %+v, want Ran 0, Queued 1", s)
	}
	free()
	l.Do(func() {})
	if b := l.Stats().Busy; b < s.Busy {
		t.Fatalf("Busy went down: %v then %v", s.Busy, b)
	}
}

func TestLoopCompactsLongQueue(t *testing.T) {
	l := NewLoop()
	defer l.Close()
	// Keep the queue from draining while many callbacks pass through it.
	var wg sync.WaitGroup
	for i := 0; i < 5*compactAt; i++ {
		wg.Add(1)
		l.Post(func() { wg.Done() })
	}
	wg.Wait()
	l.Do(func() {})
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.head != 0 || len(l.q) != 0 {
		t.Fatalf("after draining: head %d len %d", l.head, len(l.q))
	}
}

// --- Lateness probe ---

func TestLagProbeEmptyReportsCountZero(t *testing.T) {
	p := StartLagProbe(nil, time.Hour, time.Second)
	defer p.Stop()
	s := p.Stats()
	for name, sum := range map[string]hist.Summary{
		"Corrected": s.Corrected, "Raw": s.Raw, "CorrectedAll": s.CorrectedAll, "RawAll": s.RawAll,
	} {
		if sum != (hist.Summary{}) {
			t.Errorf("%s = %+v, want zero (Count 0: n/a)", name, sum)
		}
	}
	if s.Resolution != time.Hour || s.Missed != 0 {
		t.Errorf("stats = %+v", s)
	}
}

func TestLagProbeResetEmpties(t *testing.T) {
	l := NewLoop()
	defer l.Close()
	p := StartLagProbe(l.Post, 20*time.Millisecond, time.Minute)
	defer p.Stop()
	l.Do(func() { time.Sleep(100 * time.Millisecond) }) // force misses
	testkit.WaitFor(t, "a missed sample", 0, func() bool { return p.Stats().Missed > 0 })
	if s := p.Stats(); s.CorrectedAll.Max < 50*time.Millisecond {
		t.Fatalf("stall not recorded: %+v", s.CorrectedAll)
	}
	reset := time.Now()
	p.Reset()
	s := p.Stats()
	since := time.Since(reset)
	if s.Missed > int64(since/(20*time.Millisecond)) {
		t.Fatalf("Missed = %d %v after Reset", s.Missed, since)
	}
	// Samples may land between Reset and Stats (one per 20ms, more with
	// their corrections on a machine busy enough to delay them), but none
	// can be the 100ms stall, which ended before Reset.
	for _, h := range []hist.Summary{s.Raw, s.Corrected, s.RawAll, s.CorrectedAll} {
		if h.Count > 1+2*int64(since/(20*time.Millisecond)) || h.Max >= since+20*time.Millisecond {
			t.Fatalf("%v after Reset: %+v", since, h)
		}
	}
}

func TestLagProbeStopNeverHangs(t *testing.T) {
	// A post that never runs fn: the Loop is stalled forever.
	var mu sync.Mutex
	var lost []func()
	p := StartLagProbe(func(fn func()) { mu.Lock(); lost = append(lost, fn); mu.Unlock() },
		time.Millisecond, time.Second)
	testkit.WaitFor(t, "a posted sample", 0, func() bool { mu.Lock(); defer mu.Unlock(); return len(lost) > 0 })
	stopped := make(chan struct{})
	go func() { p.Stop(); p.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("Stop hung on a sample that never runs")
	}
	mu.Lock()
	if len(lost) != 1 {
		t.Errorf("%d samples posted, want 1 in flight at a time", len(lost))
	}
	lost[0]() // running it late must not block or panic
	mu.Unlock()

	// And with a closed Loop (posts then run on fresh goroutines).
	l := NewLoop()
	l.Close()
	p = StartLagProbe(l.Post, time.Millisecond, time.Second)
	testkit.WaitFor(t, "4 samples on a closed Loop", 0, func() bool { return p.Stats().RawAll.Count > 3 })
	p.Stop()
	p.Stop()
}

func TestLagProbeStopDuringLongSleep(t *testing.T) {
	p := StartLagProbe(nil, time.Hour, time.Second)
	t0 := time.Now()
	p.Stop()
	if d := time.Since(t0); d > time.Second {
		t.Fatalf("Stop took %v with a 1h resolution", d)
	}
}

func TestLagProbeRecordsHugeLatenessWithoutPanic(t *testing.T) {
	// A sample 150s late, beyond hist.Highest (100s), through the probe's
	// own recording path: clamped and counted, never a panic.
	p := StartLagProbe(nil, time.Hour, time.Minute)
	defer p.Stop()
	late := int64(150 * time.Second)
	p.raw.Record(late)
	p.corr.RecordCorrected(late, int64(p.res))
	s := p.Stats()
	if s.RawAll.Clamped != 1 || s.RawAll.Max < 99*time.Second {
		t.Fatalf("RawAll = %+v, want 1 clamped at ~100s", s.RawAll)
	}
}

func TestLagProbeUsesTimerFDOnLinux(t *testing.T) {
	p := StartLagProbe(nil, time.Hour, time.Second)
	defer p.Stop()
	if (p.fd != nil) != (runtime.GOOS == "linux") || (p.fd == nil && p.wait != waitTimer) {
		t.Fatalf("on %s: fd %v, wait %v", runtime.GOOS, p.fd, p.wait)
	}
}

// --- Scheduler probe ---

func TestSchedProbe(t *testing.T) {
	s := StartSchedProbe(time.Millisecond, time.Second)
	defer s.Stop()
	var wg sync.WaitGroup
	for range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for i := range 10000 {
				x += i
			}
			runtime.Gosched()
			_ = x
		}()
	}
	wg.Wait()
	testkit.WaitFor(t, "6 scheduler-probe samples", 0, func() bool { return s.lag.Stats().RawAll.Count > 5 })
	st := s.Stats()
	rt := st.Runtime
	t.Logf("runtime: n %d p50 %v p90 %v p99 %v p99.9 %v max %v", rt.Count, rt.P50, rt.P90, rt.P99, rt.P999, rt.Max)
	logLag(t, st.LagStats)
	if rt.Count <= 0 {
		t.Fatalf("Runtime.Count = %d after goroutine churn", rt.Count)
	}
	if !(rt.P50 <= rt.P90 && rt.P90 <= rt.P99 && rt.P99 <= rt.P999 && rt.P999 <= rt.Max) {
		t.Fatalf("percentiles out of order: %+v", rt)
	}
	if rt.Max <= 0 || rt.Max > time.Minute {
		t.Fatalf("Runtime.Max = %v", rt.Max)
	}
	if st.RawAll.Count == 0 {
		t.Fatal("scheduler probe recorded no lateness")
	}
	s.Reset()
	if st2 := s.Stats(); st2.RawAll.Count > st.RawAll.Count {
		t.Fatalf("after Reset: %+v", st2)
	}
	s.Stop()
	s.Stop()
}

func TestSummarizeBuckets(t *testing.T) {
	inf := math.Inf(1)
	bounds := []float64{0, 0.001, 0.002, 0.004, inf} // 4 buckets, last open
	ms := func(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }
	tests := []struct {
		name      string
		cur, prev []uint64
		want      hist.Summary
	}{
		{"empty", []uint64{0, 0, 0, 0}, nil, hist.Summary{}},
		{"no change", []uint64{5, 5, 0, 0}, []uint64{5, 5, 0, 0}, hist.Summary{}},
		{"all in first bucket", []uint64{10, 0, 0, 0}, nil,
			hist.Summary{P50: ms(1), P90: ms(1), P99: ms(1), P999: ms(1), Max: ms(1), Count: 10}},
		{"delta only", []uint64{100, 10, 1, 0}, []uint64{100, 0, 0, 0},
			hist.Summary{P50: ms(2), P90: ms(2), P99: ms(4), P999: ms(4), Max: ms(4), Count: 11}},
		{"+Inf bucket clamps to last finite bound", []uint64{98, 1, 0, 1}, nil,
			hist.Summary{P50: ms(1), P90: ms(1), P99: ms(2), P999: ms(4), Max: ms(4), Count: 100}},
		{"counter went down (bucket counted as 0)", []uint64{1, 0, 0, 0}, []uint64{5, 0, 0, 0}, hist.Summary{}},
		{"length mismatch", []uint64{1, 2}, nil, hist.Summary{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := summarizeBuckets(tc.cur, tc.prev, bounds); got != tc.want {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// --- helpers ---

func logLag(t *testing.T, s LagStats) {
	t.Helper()
	f := func(name string, h hist.Summary) {
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		t.Logf("%-13s n %5d  p50 %7.3fms  p90 %7.3fms  p99 %7.3fms  p99.9 %7.3fms  max %7.3fms",
			name, h.Count, ms(h.P50), ms(h.P90), ms(h.P99), ms(h.P999), ms(h.Max))
	}
	f("raw", s.Raw)
	f("corrected", s.Corrected)
	f("raw all", s.RawAll)
	f("corrected all", s.CorrectedAll)
	t.Logf("missed %d, resolution %v", s.Missed, s.Resolution)
}

// TestStalledShowsALoopBlockedForGood pins the fix for a Loop blocked by a
// hung inline task reading n/a: the sample in flight reports how late it is.
func TestStalledShowsALoopBlockedForGood(t *testing.T) {
	res := 10 * time.Millisecond
	due := time.Unix(100, 0)
	for _, c := range []struct {
		dueNs int64
		now   time.Time
		want  time.Duration
	}{
		{0, due.Add(time.Hour), 0},                         // nothing in flight
		{due.UnixNano(), due.Add(5 * time.Millisecond), 0}, // within a resolution: not stalled
		{due.UnixNano(), due.Add(3 * time.Second), 3 * time.Second},
	} {
		if got := stalled(c.dueNs, c.now, res); got != c.want {
			t.Errorf("stalled(%d, %v) = %v, want %v", c.dueNs, c.now, got, c.want)
		}
	}
	l := NewLoop()
	release := make(chan struct{})
	l.Post(func() { <-release })
	p := StartLagProbe(l.Post, res, time.Second)
	testkit.WaitFor(t, "the blocked Loop shown as stalled", 0, func() bool { return p.Stats().Stalled >= 50*time.Millisecond })
	close(release)
	p.Stop()
	l.Close()
}
