//go:build shape

package session

import (
	"runtime"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/shape"
)

// TestServerPingTailInlineVsPool is seed 000 s4's shape (docs/seeds.md): with the
// CPU work on the Loop (workers 0) a /ping waits behind it; with one worker
// the Loop answers at once. The ratio of ping p99s must be at least 10.
func TestServerPingTailInlineVsPool(t *testing.T) {
	shape.Judge(t)
	if testing.Short() {
		t.Skip("16s of real load")
	}
	p99 := func(workers int) float64 {
		s, err := New(Config{Scenario: "server", Workers: workers, Window: 8 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		time.Sleep(8 * time.Second)
		for _, r := range s.Snapshot().Readouts {
			if r.Key == "ping_p99_ms" && r.Known {
				return r.Value
			}
		}
		t.Fatalf("workers %d: no ping p99", workers)
		return 0
	}
	inline, pooled := p99(0), p99(1)
	t.Logf("ping p99: workers 0 %.2fms, workers 1 %.2fms, ratio %.0f", inline, pooled, inline/pooled)
	if inline < 10*pooled {
		t.Errorf("ping p99 at workers 0 (%.2fms) is not 10x that at workers 1 (%.2fms)", inline, pooled)
	}
}

// TestSpeedupFollowsGOMAXPROCS: count at 2 workers speeds up with 2 Ps and
// stays near 1 with GOMAXPROCS 1, whatever the workers.
func TestSpeedupFollowsGOMAXPROCS(t *testing.T) {
	shape.Judge(t)
	if testing.Short() || runtime.NumCPU() < 2 {
		t.Skip("real batches on 2 CPUs")
	}
	defer runtime.SetDefaultGOMAXPROCS()
	speedup := func(gmp int) (float64, float64) {
		s := newSession(t, Config{Scenario: "count", Workers: 2, Scale: 0.1, GOMAXPROCS: gmp})
		defer s.Close()
		var last, cpuPerWall float64
		waitFor(t, "3 batches", func() bool {
			snap := s.Snapshot()
			var n float64
			for _, r := range snap.Readouts {
				switch {
				case r.Key == "batches" && r.Known:
					n = r.Value
				case r.Key == "speedup" && r.Known:
					last = r.Value
				case r.Key == "cpu_per_wall" && r.Known:
					cpuPerWall = r.Value
				}
			}
			return n >= 3
		})
		return last, cpuPerWall
	}
	one, cpw := speedup(1)
	t.Logf("count at 2 workers, GOMAXPROCS 1: speed-up %.2f, CPU/wall %.2f", one, cpw)
	// One P runs Go code on one thread at a time: a batch's CPU time cannot
	// exceed its wall time by much (GC and syscalls aside). The speed-up is
	// against a reference batch measured on a busy process, so its margin
	// is wider.
	if cpw > 1.25 || one > 1.6 {
		t.Errorf("GOMAXPROCS 1: CPU/wall %.2f, speed-up %.2f: more than one core's worth", cpw, one)
	}
}
