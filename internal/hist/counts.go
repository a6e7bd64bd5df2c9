package hist

import (
	"math"
	"math/bits"
)

// The bucket layout is hdr's (HdrHistogram's log-linear buckets) for
// Lowest, Highest and SigFigs, so every value reads back as
// hdrhistogram-go's dense Histogram would read it (TestReadsAsDenseHdr pins
// it): unitMagnitude = floor(log2(Lowest)); 2*10^SigFigs rounded up to a
// power of two sub-buckets, the lower half of each bucket after the first
// overlapping the one before.
const (
	unitMagnitude               = 9 // floor(log2(1000))
	subBucketHalfCountMagnitude = 7 // ceil(log2(2 * 10^2)) - 1
	subBucketHalfCount          = 1 << subBucketHalfCountMagnitude
	subBucketMask               = (2*subBucketHalfCount - 1) << unitMagnitude
)

// countsLen is the number of buckets: the index of Highest, plus one.
var countsLen = index(Highest) + 1

// index is the bucket of v (0 <= v <= Highest).
func index(v int64) int {
	bucket := 64 - bits.LeadingZeros64(uint64(v)|subBucketMask) - unitMagnitude - (subBucketHalfCountMagnitude + 1)
	sub := int(v >> (bucket + unitMagnitude))
	return (bucket+1)<<subBucketHalfCountMagnitude + sub - subBucketHalfCount
}

// highest is the highest value that lands in bucket i: what hdr reports
// for a percentile or the max that falls in it.
func highest(i int) int64 {
	bucket := i>>subBucketHalfCountMagnitude - 1
	sub := i&(subBucketHalfCount-1) + subBucketHalfCount
	if bucket < 0 {
		sub -= subBucketHalfCount
		bucket = 0
	}
	lowest := int64(sub) << (bucket + unitMagnitude)
	// The width of the bucket: one unit of the bucket after, for the top
	// sub-bucket of a bucket (as hdr's sizeOfEquivalentValueRange).
	width := int64(1) << (bucket + unitMagnitude)
	if sub >= 2*subBucketHalfCount {
		width <<= 1
	}
	return lowest + width - 1
}

// counts is a dense histogram over the layout above, with the range of
// buckets in use tracked so reads scan only that range.
type counts struct {
	c        []int64 // nil until the first value
	n        int64
	min, max int // buckets in use: [min, max] when n > 0
}

// add adds k values in bucket i.
func (h *counts) add(i int, k int64) {
	if h.c == nil {
		h.c = make([]int64, countsLen)
	}
	if h.n == 0 || i < h.min {
		h.min = i
	}
	if h.n == 0 || i > h.max {
		h.max = i
	}
	h.c[i] += k
	h.n += k
}

// addCorrected adds v and, for an interval > 0 that v exceeds, v-interval,
// v-2*interval, ... down to interval (hdr's RecordCorrectedValue).
func (h *counts) addCorrected(v, interval int64) {
	h.add(index(v), 1)
	if interval <= 0 {
		return
	}
	for m := v - interval; m >= interval; m -= interval {
		h.add(index(m), 1)
	}
}

// sub removes what o holds from h (o's values must all be in h). The
// range of buckets in use shrinks to the buckets still holding counts.
func (h *counts) sub(o *counts) {
	if o.n == 0 {
		return
	}
	for i := o.min; i <= o.max; i++ {
		h.c[i] -= o.c[i]
	}
	h.n -= o.n
	if h.n == 0 {
		return
	}
	for h.c[h.min] == 0 {
		h.min++
	}
	for h.c[h.max] == 0 {
		h.max--
	}
}

// merge adds what o holds to h.
func (h *counts) merge(o *counts) {
	if o.n == 0 {
		return
	}
	for i := o.min; i <= o.max; i++ {
		if o.c[i] != 0 {
			h.add(i, o.c[i])
		}
	}
}

// reset empties h, keeping its memory.
func (h *counts) reset() {
	if h.n > 0 {
		clear(h.c[h.min : h.max+1])
	}
	h.n = 0
}

// quantiles are the percentiles a Summary holds, as hdr takes them.
var quantiles = [4]float64{50, 90, 99, 99.9}

// summary reads h as hdr's dense Histogram reads the same values: a
// percentile is the highest value of the bucket where the count reaches
// the percentile's rank (hdr's percentileRank), the max the highest value
// of the highest bucket in use. One scan over the buckets in use.
func (h *counts) summary() Summary {
	if h.n == 0 {
		return Summary{}
	}
	var ranks [4]int64
	for j, q := range quantiles {
		r := q/100*float64(h.n) + 0.5
		switch {
		case !(r >= 1):
			ranks[j] = 1
		case r >= float64(h.n):
			ranks[j] = h.n
		default:
			ranks[j] = int64(math.Min(r, float64(h.n)))
		}
	}
	var out [4]int64
	j := 0
	var cum int64
	for i := h.min; i <= h.max && j < len(ranks); i++ {
		cum += h.c[i]
		for j < len(ranks) && cum >= ranks[j] {
			out[j] = highest(i)
			j++
		}
	}
	return Summary{
		P50:   durationOf(out[0]),
		P90:   durationOf(out[1]),
		P99:   durationOf(out[2]),
		P999:  durationOf(out[3]),
		Max:   durationOf(highest(h.max)),
		Count: h.n,
	}
}
