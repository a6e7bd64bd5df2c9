//go:build shape

package scenarios_test

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/shape"
)

// TestShapeCrashLoopStaysResponsive: over crash2000's run (1 worker,
// panics and hangs) the Loop's probe p99 is under 50ms, or, where a free
// goroutine is late too (the sched probe over the same window), under
// twice that goroutine's plus 10ms. A Loop blocked by the scenario reads
// hundreds of ms while the free goroutine reads a few.
func TestShapeCrashLoopStaysResponsive(t *testing.T) {
	shape.Judge(t)
	last := crash2000(t)
	p, free := last.Probe, last.Sched
	if limit := max(50*time.Millisecond, 2*free.P99+10*time.Millisecond); p.Count == 0 || p.P99 >= limit {
		t.Errorf("Loop probe p99 %v (count %d) with 1 worker, want < %v (free goroutine p99 %v)", p.P99, p.Count, limit, free.P99)
	}
}
