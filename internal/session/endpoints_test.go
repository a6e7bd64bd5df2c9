package session

import (
	"testing"
)

// TestProgramEndpointsInEverySample: a Program's Endpoints is read anew
// for each sample, and a session without one carries none.
func TestProgramEndpointsInEverySample(t *testing.T) {
	var n int64 // the sampler goroutine alone touches it
	_, step := stepped(t, Config{Program: &Program{Name: "svc", Endpoints: func() []Endpoint {
		n++
		return []Endpoint{{Route: "/ping", Count: n, Status: StatusCounts{S2xx: n}}}
	}}})
	var last int64
	for range 2 {
		snap := step()
		if len(snap.Endpoints) != 1 || snap.Endpoints[0].Route != "/ping" {
			t.Fatalf("endpoints %+v, want the one route the program gave", snap.Endpoints)
		}
		if got := snap.Endpoints[0].Count; got <= last {
			t.Fatalf("count %d after %d: not read anew for this sample", got, last)
		}
		last = snap.Endpoints[0].Count
	}
	_, ownStep := stepped(t, Config{Scenario: "stall", Workers: 1})
	if snap := ownStep(); snap.Endpoints != nil {
		t.Fatalf("a scenario session carries endpoints %+v", snap.Endpoints)
	}
}
