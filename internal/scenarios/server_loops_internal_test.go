package scenarios

import (
	"context"
	"net/http/httptest"
	"testing"
)

// TestLoopForIsRoundRobinOverConnections: connection k is served by Loop
// k mod the Loops running, so a change of Loops moves connections at
// their next request.
func TestLoopForIsRoundRobinOverConnections(t *testing.T) {
	s := &server{}
	for range 3 {
		s.loops = append(s.loops, &srvLoop{})
	}
	req := func(k int64) *srvLoop {
		r := httptest.NewRequest("GET", "/ping", nil)
		return s.loopFor(r.WithContext(context.WithValue(r.Context(), connKey{}, k)))
	}
	for k := range int64(9) {
		if got := req(k); got != s.loops[k%3] {
			t.Errorf("connection %d: not Loop %d", k, k%3)
		}
	}
	s.loops = s.loops[:2]
	if req(5) != s.loops[1] || req(4) != s.loops[0] {
		t.Error("after a shrink to 2: connections 4 and 5 not on Loops 0 and 1")
	}
	for i := range int64(4) {
		ctx := s.connContext(context.Background(), nil)
		if k := ctx.Value(connKey{}).(int64); k != i {
			t.Errorf("connection %d numbered %d", i, k)
		}
	}
}
