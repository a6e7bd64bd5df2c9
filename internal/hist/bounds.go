package hist

import hdr "github.com/HdrHistogram/hdrhistogram-go"

// Bounds are the lowest and the highest value (ns) of bucket i >= 0, as
// hdrhistogram-go's Distribution gives them (From, To) for the same index
// of its Counts (a Snapshot of a histogram of NewHistogram's range).
func Bounds(i int) (lo, hi int64) {
	bucket := i>>subBucketHalfCountMagnitude - 1
	sub := i&(subBucketHalfCount-1) + subBucketHalfCount
	if bucket < 0 {
		sub -= subBucketHalfCount
		bucket = 0
	}
	return int64(sub) << (bucket + unitMagnitude), highest(i)
}

// EachBucket calls fn for each bucket of h that holds values, lowest
// first: its lowest and highest value (ns) and its count. A histogram of
// NewHistogram's range is read from one copy of its counts (where hdr's
// Distribution makes a bar of every bucket), another through Distribution.
func EachBucket(h *hdr.Histogram, fn func(from, to, count int64)) {
	if snap := h.Export(); snap.LowestTrackableValue == Lowest && snap.HighestTrackableValue == Highest &&
		snap.SignificantFigures == SigFigs {
		for i, c := range snap.Counts {
			if c > 0 {
				from, to := Bounds(i)
				fn(from, to, c)
			}
		}
		return
	}
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			fn(b.From, b.To, b.Count)
		}
	}
}
