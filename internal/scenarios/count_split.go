package scenarios

import (
	"fmt"
	"math"
	"strings"
)

// How "count" hands a batch of jobs to the pool (seed 000 s1-2, docs/seeds.md).
// SplitQueue submits every job as its own task and lets the pool's queue
// hand them out: the split a pool with a queue makes for you. The other
// three cut the batch into one chunk per worker up front, as the seed's
// notes do, and submit one task per chunk.
const (
	// SplitQueue: every job its own task (the default).
	SplitQueue = "queue"
	// SplitEven: contiguous chunks whose sizes differ by at most one job
	// (the notes' chunkify written with splice).
	SplitEven = "even"
	// SplitSlice: chunk i is jobs.slice(i*J/W, (i+1)*J/W) with J/W
	// fractional and the indexes truncated, as JavaScript's slice does: the
	// ranges still cover every job once, but with fewer jobs than workers
	// the first worker gets none (5 jobs on 6 workers: [0 1 1 1 1 1]).
	SplitSlice = "slice"
	// SplitChunkify: for i = W down to 1, jobs.slice(0, ceil(J/i)): slice
	// copies and never removes what it took, so every chunk starts at job
	// 0 and the last is the whole batch (2 jobs on 4 workers: [1 1 1 2],
	// 5 jobs counted; the total comes out wrong).
	SplitChunkify = "chunkify"
)

// CountSplits lists the splits in the order the split key cycles them.
var CountSplits = []string{SplitQueue, SplitEven, SplitSlice, SplitChunkify}

// ParseSplit checks a split name; "" is SplitQueue.
func ParseSplit(s string) (string, error) {
	if s == "" {
		return SplitQueue, nil
	}
	for _, v := range CountSplits {
		if s == v {
			return s, nil
		}
	}
	return "", fmt.Errorf("unknown split %q (have: %s)", s, strings.Join(CountSplits, ", "))
}

// splitJobs returns how many jobs each of w chunks gets under split, for a
// batch of jobs jobs; nil for SplitQueue (one task per job). Only the
// sizes matter to the work, as every job counts the same range. It
// computes exactly what the seed's JavaScript computes: the same float64
// divisions, truncated (slice) or rounded up (Math.ceil).
func splitJobs(split string, jobs, w int) []int {
	w = max(w, 1)
	out := make([]int, w)
	switch split {
	case SplitEven:
		for i := range out {
			out[i] = jobs / w
			if i < jobs%w {
				out[i]++
			}
		}
	case SplitSlice:
		per := float64(jobs) / float64(w)
		for i := range out {
			lo := min(int(math.Trunc(float64(i)*per)), jobs)
			hi := min(int(math.Trunc(float64(i+1)*per)), jobs)
			out[i] = max(hi-lo, 0)
		}
	case SplitChunkify:
		for k, i := 0, w; i > 0; k, i = k+1, i-1 {
			out[k] = min(int(math.Ceil(float64(jobs)/float64(i))), jobs)
		}
	default:
		return nil
	}
	return out
}

// nextSplit is the split after s in CountSplits, wrapping; delta < 0 goes
// back.
func nextSplit(s string, delta int) string {
	i := 0
	for k, v := range CountSplits {
		if v == s {
			i = k
		}
	}
	n := len(CountSplits)
	return CountSplits[((i+delta)%n+n)%n]
}
