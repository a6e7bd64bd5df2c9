//go:build shape

package agent

import (
	"net/http"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/shape"
)

// TestMiddlewareReadsRealSleep: a handler that sleeps 20 ms on the real
// clock reads p50 20 ms within 1 ms through the middleware (time.Sleep
// overshoots on a busy machine: judged only on a quiet one).
func TestMiddlewareReadsRealSleep(t *testing.T) {
	shape.Judge(t)
	e := newEndpoints(10*time.Second, nil)
	h := e.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(20 * time.Millisecond) }))
	for range 50 {
		serve(h, http.MethodGet, "/sleep")
	}
	ep, ok := byRoute(e.read(), "/sleep")
	if !ok || ep.Latency.Count != 50 {
		t.Fatalf("endpoint %+v, want /sleep with 50 requests", ep)
	}
	t.Logf("p50 %v, p99 %v, max %v", ep.Latency.P50, ep.Latency.P99, ep.Latency.Max)
	if d := ep.Latency.P50 - 20*time.Millisecond; d < -time.Millisecond || d > time.Millisecond {
		t.Errorf("p50 %v, want 20ms within 1ms", ep.Latency.P50)
	}
}
