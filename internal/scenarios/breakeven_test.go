package scenarios_test

import (
	"crypto/sha256"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
)

// breakevenRun is a breakeven session brought to one grid point.
type breakevenRun struct {
	s *session.Session
}

// startBreakeven starts breakeven on a real session with 2 workers. The
// payload size is the grid's middle, 512KB, times scale (1/256: 2KB, 16:
// 8MB); rounds is stepped from 8 by load (-1: 1 round). It returns once
// the scenario runs at that point.
func startBreakeven(t testing.TB, scale float64, load int, wantKB, wantRounds float64) *breakevenRun {
	t.Helper()
	s, err := session.New(session.Config{Scenario: "breakeven", Workers: 2, Scale: scale,
		Interval: 20 * time.Millisecond, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	r := &breakevenRun{s}
	if load != 0 {
		if err := s.Apply(session.Action{Kind: session.Load, N: load}); err != nil {
			t.Fatal(err)
		}
	}
	r.waitFor(t, 60*time.Second, func(snap session.Snapshot) bool {
		kb, _ := readout(snap, "payload_kb")
		rounds, _ := readout(snap, "hash_rounds")
		return kb.Known && kb.Value == wantKB && rounds.Known && rounds.Value == wantRounds
	})
	return r
}

// waitFor returns the first sample for which cond holds; it fails the test
// after d.
func (r *breakevenRun) waitFor(t testing.TB, d time.Duration, cond func(session.Snapshot) bool) session.Snapshot {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case snap, ok := <-r.s.Samples():
			if !ok {
				t.Fatal("session closed")
			}
			if cond(snap) {
				return snap
			}
		case <-deadline:
			r.s.Close()
			t.Fatalf("breakeven: no sample met the condition within %v; last %+v", d, r.s.Snapshot().Readouts)
		}
	}
}

// cycles waits until n batches of each mode ran since the reset (3n in
// all: the modes take turns) and every figure is in.
func (r *breakevenRun) cycles(t testing.TB, n int, d time.Duration) session.Snapshot {
	t.Helper()
	return r.waitFor(t, d, func(snap session.Snapshot) bool {
		b, _ := readout(snap, "batches")
		for _, k := range []string{"inline_wall_ms", "copy_wall_ms", "move_wall_ms", "answer_ok"} {
			if v, _ := readout(snap, k); !v.Known {
				return false
			}
		}
		return b.Value >= float64(3*n)
	})
}

// value returns a known numeric readout or fails the test.
func value(t testing.TB, snap session.Snapshot, key string) float64 {
	t.Helper()
	r, ok := readout(snap, key)
	if !ok || !r.Known {
		t.Fatalf("%s = %+v, want a value", key, r)
	}
	return r.Value
}

func checkAnswer(t *testing.T, snap session.Snapshot) {
	t.Helper()
	if r, _ := readout(snap, "answer_ok"); !r.Known || r.Value != 1 {
		t.Errorf("answer_ok = %+v: a pool mode's digests differ from inline's", r)
	}
	if n := value(t, snap, "task_errors"); n != 0 {
		t.Errorf("task_errors = %v", n)
	}
}

// pause pauses (true) or resumes the scenario; pausing abandons the batch
// in progress.
func (r *breakevenRun) pause(t testing.TB, p bool) {
	t.Helper()
	if r.s.Snapshot().Paused != p {
		if err := r.s.Apply(session.Action{Kind: session.TogglePause}); err != nil {
			t.Fatal(err)
		}
	}
}

// window resets the figures and waits for n batches of each mode.
func (r *breakevenRun) window(t testing.TB, n int, d time.Duration) session.Snapshot {
	t.Helper()
	if err := r.s.Apply(session.Action{Kind: session.Reset}); err != nil {
		t.Fatal(err)
	}
	dropStale(r.s)
	return r.cycles(t, n, d)
}

// dropStale discards the samples taken before an Apply that just returned:
// those waiting in the channel, and the next one, which the sampler may
// have read before the Apply and sent after it.
func dropStale(s *session.Session) {
	for {
		select {
		case <-s.Samples():
			continue
		default:
		}
		break
	}
	<-s.Samples()
}

// walls returns the inline, pool-copy and pool-move median batch walls.
func walls(t testing.TB, snap session.Snapshot) (in, cp, mv float64) {
	t.Helper()
	return value(t, snap, "inline_wall_ms"), value(t, snap, "copy_wall_ms"), value(t, snap, "move_wall_ms")
}

// parallelSpeedup is how much faster two goroutines hash 32 MB than one
// does right now: the fastest of five runs each way, near 2 on an idle
// 2-core machine, near 1 when other processes hold a core.
func parallelSpeedup() float64 {
	p := make([]byte, 1<<20)
	hash := func(n int) {
		for range n {
			sha256.Sum256(p)
		}
	}
	one, two := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for range 5 {
		t := time.Now()
		hash(32)
		one = min(one, time.Since(t))
		t = time.Now()
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() { hash(16) })
		}
		wg.Wait()
		two = min(two, time.Since(t))
	}
	return float64(one) / float64(two)
}

// BenchmarkBreakeven runs the three modes at five points, from 2KB x 1
// round to 8MB x 1, on a real session with 2 workers. One op is one cycle (inline, pool-copy,
// pool-move); the metrics are the scenario's readouts at the end: each
// mode's median batch wall, speed-ups against inline, pool-move's overhead
// per task and break-even CPU per task.
func BenchmarkBreakeven(b *testing.B) {
	for _, c := range []struct {
		name       string
		scale      float64
		load       int
		kb, rounds float64
	}{
		{"2KBx1", 1.0 / 256, -1, 2, 1},
		{"64KBx1", 0.125, -1, 64, 1},
		{"512KBx8", 1, 0, 512, 8},
		{"2MBx8", 4, 0, 2048, 8},
		{"8MBx1", 16, -1, 8192, 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := startBreakeven(b, c.scale, c.load, c.kb, c.rounds)
			defer r.s.Close()
			b.ResetTimer()
			snap := r.window(b, b.N, time.Duration(b.N)*time.Minute)
			b.StopTimer()
			for _, m := range []struct{ key, unit string }{
				{"inline_wall_ms", "inline-ms"},
				{"copy_wall_ms", "copy-ms"},
				{"move_wall_ms", "move-ms"},
				{"copy_speedup", "copy-x"},
				{"move_speedup", "move-x"},
				{"move_overhead_per_task_ms", "move-overhead-ms/task"},
				{"move_break_even_cpu_ms", "move-breakeven-ms/task"},
				{"inline_cpu_per_task_ms", "cpu-ms/task"},
			} {
				if v, ok := readout(snap, m.key); ok && v.Known {
					b.ReportMetric(v.Value, m.unit)
				}
			}
		})
	}
}
