package load

import (
	"math"
	"runtime"
	"slices"
	"testing"
	"time"
)

// Where there is a timerfd, Pace waits for the due time itself, never
// returning before it, and answers no wait; close ends a wait at once and
// stops the attack.
func TestPaceWaitsOnItsTimer(t *testing.T) {
	p := newPacer(time.Hour, time.Second, targetStep(0), maxLead)
	if p.fd == nil {
		if runtime.GOOS == "linux" {
			t.Fatal("no timerfd on linux")
		}
		t.Skip("no timerfd here: vegeta sleeps")
	}
	p.base = time.Now()
	// Request 1 of a 2 ms interval at elapsed 0 is due in 2 ms.
	p.interval = 2 * time.Millisecond
	start := time.Now()
	if wait, stop := p.Pace(0, 1); wait != 0 || stop {
		t.Fatalf("Pace = %v, %v; want 0, false after waiting", wait, stop)
	}
	if got := time.Since(start); got < 2*time.Millisecond {
		t.Fatalf("Pace returned after %v, before the 2ms due time", got)
	}
	// Overdue: no wait, no sleep.
	if wait, stop := p.Pace(time.Second, 1); wait >= 0 || stop {
		t.Fatalf("overdue Pace = %v, %v; want a negative wait, false", wait, stop)
	}
	// A wait of an hour ended by close.
	p.interval = time.Hour
	done := make(chan bool, 1)
	go func() { _, stop := p.Pace(0, 1); done <- stop }()
	p.close()
	select {
	case stop := <-done:
		if !stop {
			t.Fatal("Pace ended by close without stop")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("close did not end Pace's wait")
	}
	if _, stop := p.Pace(0, 2); !stop {
		t.Fatal("Pace after close: no stop")
	}
}

// The schedule keeps one request in each slot, in order, so the rate is
// the spec's over any whole number of slots; and two targets whose
// intervals divide each other do not meet at one phase: of the /pings
// of /ping=50/s due beside /fib=20/s's, about as many fall within 1 ms
// after a /fib's due time as chance gives (1 ms of 50: 2%), not every
// fifth as a schedule of n*interval from one start gave.
func TestScheduleSpreadsPhases(t *testing.T) {
	ping := newPacer(20*time.Millisecond, time.Second, targetStep(0), maxLead)
	fib := newPacer(50*time.Millisecond, time.Second, targetStep(1), maxLead)
	const n = 5000 // 100 s of /ping
	prev := time.Duration(-1)
	for i := range uint64(n) {
		at := ping.at(i)
		if at < time.Duration(i)*ping.interval || at >= time.Duration(i+1)*ping.interval || at <= prev {
			t.Fatalf("request %d due at %v: want in its slot [%v, %v) and after the one before (%v)",
				i, at, time.Duration(i)*ping.interval, time.Duration(i+1)*ping.interval, prev)
		}
		prev = at
	}
	// The /fib due times, then for each /ping the time since the last.
	var fibs []time.Duration
	for i := uint64(0); fib.at(i) < ping.at(n-1); i++ {
		fibs = append(fibs, fib.at(i))
	}
	near, j := 0, 0
	for i := range uint64(n) {
		at := ping.at(i)
		for j+1 < len(fibs) && fibs[j+1] <= at {
			j++
		}
		if d := at - fibs[j]; d >= 0 && d < time.Millisecond {
			near++
		}
	}
	share := float64(near) / n
	if math.Abs(share-0.02) > 0.01 {
		t.Errorf("%.1f%% of /pings due within 1 ms after a /fib: want about 2%% (chance), not locked to its phase", 100*share)
	}
	t.Logf("%d of %d /pings (%.2f%%) due within 1 ms after a /fib", near, n, 100*share)
}

// Targets' first requests are not due together: 100 targets at 1/s have
// their first due times spread over the first second, at most 3 in any
// 1 ms (as many as 100 random points give; a schedule from frac(0*step)
// = 0 had all 100 at the start).
func TestFirstRequestsSpread(t *testing.T) {
	var firsts []time.Duration
	for i := range 100 {
		firsts = append(firsts, newPacer(time.Second, time.Second, targetStep(i), maxLead).at(0))
	}
	slices.Sort(firsts)
	for i := range firsts {
		j := i
		for j < len(firsts) && firsts[j]-firsts[i] < time.Millisecond {
			j++
		}
		if j-i > 3 {
			t.Fatalf("%d targets' first requests due within 1 ms of %v", j-i, firsts[i])
		}
	}
}

// A load's spinning before its due times takes at most spinShare of a
// core at any total rate, and never more than maxLead a request.
func TestLeadBoundsTheSpin(t *testing.T) {
	for rate := 1; rate <= MaxRate; rate++ {
		lead := leadFor(rate)
		if lead <= 0 || lead > maxLead {
			t.Fatalf("leadFor(%d) = %v, want in (0, %v]", rate, lead, maxLead)
		}
		if share := float64(rate) * lead.Seconds(); share > spinShare*1.0001 {
			t.Fatalf("leadFor(%d) = %v: spins %.4f of a core, over %v", rate, lead, share, spinShare)
		}
	}
	if got := leadFor(MaxRate); got != 20*time.Microsecond {
		t.Fatalf("leadFor(%d) = %v, want 20µs", MaxRate, got)
	}
}
