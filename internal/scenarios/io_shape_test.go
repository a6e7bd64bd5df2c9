//go:build shape

package scenarios_test

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/shape"
	"go.uber.org/goleak"
)

// TestIOThroughputFollowsWorkersNotCPU pins seed 004's lesson
// (docs/seeds.md) in offtop's terms: tasks that block on a 50 ms call
// complete at about workers / 50 ms, so 8 workers do at least 3 times the
// calls of 1 on 2 cores, and the process stays under one core of CPU doing
// it. Arrivals are open-loop at
// 160/s, above what 1 worker (20/s) can take and near 8 workers' 160/s:
// they keep coming at that rate while tasks queue (no coordinated omission).
func TestIOThroughputFollowsWorkersNotCPU(t *testing.T) {
	shape.Judge(t)
	defer goleak.VerifyNone(t)
	s, err := session.New(session.Config{Scenario: "io", Workers: 1,
		Interval: 100 * time.Millisecond, Window: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	apply := func(a session.Action) {
		t.Helper()
		if err := s.Apply(a); err != nil {
			t.Fatal(err)
		}
	}
	apply(session.Action{Kind: session.Load, N: 2}) // 40/s -> 160/s
	one := runPhase(t, s, 2500*time.Millisecond)
	apply(session.Action{Kind: session.SetWorkers, N: 8})
	eight := runPhase(t, s, 2500*time.Millisecond)

	apply(session.Action{Kind: session.TogglePause})
	dropStale(s)
	paused := <-s.Samples()
	for range 4 {
		if snap := <-s.Samples(); snap.Submitted != paused.Submitted {
			t.Errorf("paused: %d tasks submitted after pause", snap.Submitted-paused.Submitted)
			break
		}
	}
	s.Close()

	t.Logf("1 worker: %.1f calls/s, %.0f%% CPU; 8 workers: %.1f calls/s, %.0f%% CPU; arrivals %.0f/s and %.0f/s",
		one.throughput, one.cpuPercent, eight.throughput, eight.cpuPercent,
		float64(one.submitted)/one.wall.Seconds(), float64(eight.submitted)/eight.wall.Seconds())
	if eight.throughput < 3*one.throughput {
		t.Errorf("throughput at 8 workers %.1f/s < 3 x %.1f/s at 1 worker", eight.throughput, one.throughput)
	}
	if one.throughput > 25 {
		t.Errorf("throughput at 1 worker %.1f/s: one worker blocking 50 ms a call cannot pass 20/s", one.throughput)
	}
	if eight.cpuPercent >= 100 {
		t.Errorf("process CPU %.0f%% at 8 workers: waiting on I/O should take well under a core", eight.cpuPercent)
	}
	// Open loop: submissions keep the arrival rate while 1 worker
	// completes 20/s.
	if rate := float64(one.submitted) / one.wall.Seconds(); rate < 0.8*160 {
		t.Errorf("arrivals at 1 worker %.0f/s, want ~160/s whatever the completions", rate)
	}
}

// ioPhase is what one stretch of an io session did.
type ioPhase struct {
	throughput float64 // completed calls per second over the window, at the end
	submitted  int64   // tasks submitted during the phase
	wall       time.Duration
	cpuPercent float64 // process CPU over the phase, 100 = one core
}

// runPhase resets the figures, lets the session run for d and reads the
// throughput over the window (d should exceed the window) and the process
// CPU and submissions over the whole phase.
func runPhase(t *testing.T, s *session.Session, d time.Duration) ioPhase {
	t.Helper()
	if err := s.Apply(session.Action{Kind: session.Reset}); err != nil {
		t.Fatal(err)
	}
	dropStale(s)
	first := <-s.Samples()
	var last session.Snapshot
	for last = range s.Samples() {
		if time.Duration(last.Elapsed-first.Elapsed) >= d {
			break
		}
	}
	p := ioPhase{
		submitted: last.Submitted - first.Submitted,
		wall:      time.Duration(last.Elapsed - first.Elapsed),
	}
	p.throughput = value(t, last, "throughput_per_s")
	if first.CPUSeconds > 0 {
		p.cpuPercent = 100 * float64(last.CPUSeconds-first.CPUSeconds) / p.wall.Seconds()
	}
	if r, _ := readout(last, "answer_ok"); !r.Known || r.Value != 1 {
		t.Errorf("answer_ok = %+v", r)
	}
	if n := value(t, last, "http_errors"); n != 0 {
		t.Errorf("http_errors = %v", n)
	}
	return p
}
