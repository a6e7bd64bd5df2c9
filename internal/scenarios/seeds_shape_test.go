//go:build shape

package scenarios_test

import (
	"testing"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/shape"
)

// TestShapeChunkifyCostsMoreThanTwiceTheCPU: 2 jobs on 4 workers split by
// chunkify count 5 jobs, so the batch burns at least twice the CPU of an
// even split of the same 2 jobs (2.5 times in the seed).
func TestShapeChunkifyCostsMoreThanTwiceTheCPU(t *testing.T) {
	shape.Judge(t)
	snap := countBatch(t, 4, scenarios.Config{CountSplit: scenarios.SplitChunkify, CountJobs: 2})
	r, _ := readout(snap, "cpu_vs_even")
	cpu, _ := readout(snap, "batch_cpu_ms")
	even, _ := readout(snap, "even_cpu_ms")
	t.Logf("chunkify: batch CPU %.1f ms, an even split's %.1f ms, ratio %.2f", cpu.Value, even.Value, r.Value)
	if !r.Known || r.Value < 2 {
		t.Errorf("CPU vs even split = %+v, want >= 2", r)
	}
}

// TestShapeObjectsBlockTheLoopLongerThanTheSum is seed 000 section 5: at
// 1,000,000 objects the Loop is blocked serialising them for the pool at
// least 5 times as long as it takes to sum their prices in place (115
// against 8 ms in the seed).
func TestShapeObjectsBlockTheLoopLongerThanTheSum(t *testing.T) {
	shape.Judge(t)
	snap := objectsRounds(t, 1, 1)
	b, _ := readout(snap, "objects_blocked_ms")
	s, _ := readout(snap, "objects_inline_sum_ms")
	rt, _ := readout(snap, "objects_round_trip_ms")
	t.Logf("1M objects: blocked %.1f ms, round trip %.1f ms, inline sum %.1f ms (seed: 115, 350, 8)", b.Value, rt.Value, s.Value)
	if !(b.Known && s.Known && b.Value >= 5*s.Value) {
		t.Errorf("blocked %+v, inline sum %+v: want blocked >= 5 x sum", b, s)
	}
}
