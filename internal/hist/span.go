package hist

import "time"

// WindowSpan is Window and the span of time it covers now: the slots
// before the current one, whole, and the current one up to now. A rate
// over the window is Count divided by it.
func (r *Recorder) WindowSpan() (Summary, time.Duration) {
	r.mu.Lock()
	now := r.now()
	r.advanceTo(now)
	span := time.Duration(int64(len(r.slots)-1)*int64(r.slot) + now.UnixNano()%int64(r.slot))
	r.mu.Unlock()
	return r.Window(), span
}
