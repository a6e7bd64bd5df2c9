package scenarios

import (
	"slices"
	"testing"
)

// TestSplitJobsReproducesSeed000 pins the seed's own tables: the slice
// split of 5 jobs on 6 workers, chunkify's [1 1 1 2] and [2 3 4 8], and
// the splice version's [1 1 0 0] and [2 2 2 2].
func TestSplitJobsReproducesSeed000(t *testing.T) {
	for _, c := range []struct {
		split   string
		jobs, w int
		want    []int
	}{
		{SplitSlice, 5, 6, []int{0, 1, 1, 1, 1, 1}},
		{SplitChunkify, 2, 4, []int{1, 1, 1, 2}},
		{SplitChunkify, 8, 4, []int{2, 3, 4, 8}},
		{SplitEven, 2, 4, []int{1, 1, 0, 0}},
		{SplitEven, 8, 4, []int{2, 2, 2, 2}},
		{SplitEven, 5, 6, []int{1, 1, 1, 1, 1, 0}},
		{SplitSlice, 16, 2, []int{8, 8}},
		{SplitSlice, 7, 3, []int{2, 2, 3}},
		{SplitEven, 7, 0, []int{7}}, // inline: one chunk
		{SplitChunkify, 3, 1, []int{3}},
	} {
		if got := splitJobs(c.split, c.jobs, c.w); !slices.Equal(got, c.want) {
			t.Errorf("splitJobs(%s, %d jobs, %d workers) = %v, want %v", c.split, c.jobs, c.w, got, c.want)
		}
	}
	if got := splitJobs(SplitQueue, 5, 2); got != nil {
		t.Errorf("queue split = %v, want nil (one task per job)", got)
	}
}

// TestSplitsCoverTheBatch: even hands out every job exactly once whatever
// the sizes; slice too, except where the float product (i+1)*(J/W) falls
// just short of an integer, where it loses the last job exactly as
// JavaScript would (15/11*11 is 14.999999999999998 there too); chunkify's
// last chunk is always the whole batch.
func TestSplitsCoverTheBatch(t *testing.T) {
	sum := func(ns []int) (s int) {
		for _, n := range ns {
			s += n
		}
		return s
	}
	if got := sum(splitJobs(SplitSlice, 15, 11)); got != 14 {
		t.Errorf("slice 15 on 11 hands out %d, want 14 (float truncation)", got)
	}
	for jobs := 1; jobs <= 40; jobs++ {
		for w := 1; w <= 12; w++ {
			if got := sum(splitJobs(SplitEven, jobs, w)); got != jobs {
				t.Fatalf("even: %d jobs on %d workers hands out %d", jobs, w, got)
			}
			last := float64(jobs) / float64(w) * float64(w)
			if got := sum(splitJobs(SplitSlice, jobs, w)); got != int(last) {
				t.Fatalf("slice: %d jobs on %d workers hands out %d, want %d", jobs, w, got, int(last))
			}
			if c := splitJobs(SplitChunkify, jobs, w); c[len(c)-1] != jobs {
				t.Fatalf("chunkify %d on %d: last chunk %d", jobs, w, c[len(c)-1])
			}
		}
	}
}

func TestParseSplitAndCycle(t *testing.T) {
	if s, err := ParseSplit(""); err != nil || s != SplitQueue {
		t.Errorf(`ParseSplit("") = %q, %v`, s, err)
	}
	if _, err := ParseSplit("splice"); err == nil {
		t.Error("ParseSplit(splice): no error")
	}
	s := SplitQueue
	for range CountSplits {
		s = nextSplit(s, 1)
	}
	if s != SplitQueue || nextSplit(SplitQueue, -1) != SplitChunkify {
		t.Errorf("cycle: %q, back from queue %q", s, nextSplit(SplitQueue, -1))
	}
}
