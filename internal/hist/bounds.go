package hist

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
