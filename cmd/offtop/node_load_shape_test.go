//go:build shape

package main

import (
	"math"
	"testing"

	"github.com/offtop/offtop/internal/shape"
)

// TestNodeRouteWait20ms: a Node handler that answers after a 20 ms timer,
// under `offtop attach --load /wait=20/s`: the Node agent's p50 for the
// route reads 20 ms within 2 ms, and the client's p50 is no lower.
func TestNodeRouteWait20ms(t *testing.T) {
	shape.Judge(t)
	last := attachLoadLast(t, startNodeService(t), "6s", "/wait=20/s")
	eps, targets := nodeEndpoints(t, last)
	lat := eps["/wait"]["latency"].(map[string]any)
	client := targets["/wait"]["latency"].(map[string]any)
	p50, n := lat["p50_ms"].(float64), lat["count"].(float64)
	t.Logf("/wait: agent p50 %.3f ms p99 %v ms over %v requests; client p50 %v ms p99 %v ms", p50, lat["p99_ms"], n, client["p50_ms"], client["p99_ms"])
	if n < 50 {
		t.Fatalf("%v requests in the window, want 50 or more", n)
	}
	if math.Abs(p50-20) > 2 {
		t.Errorf("agent p50 %.3f ms, want 20 ms within 2 ms", p50)
	}
	if client["p50_ms"].(float64) < p50 {
		t.Errorf("client p50 %v ms below the handler's %.3f ms", client["p50_ms"], p50)
	}
}
