//go:build shape

package main

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/shape"
)

// TestShapeStopsWithin2s, judged on a quiet machine:
// SIGTERM into a 20s stall, two SIGTERMs back to back, and SIGTERM to a
// dashboard suspended with ctrl+z end the run within 2s; --duration 2s
// ends a login or crash run at scale 1000 within 2s of its end; SIGINT
// ends a sweep within 2s in every phase (stopSweepOnInt). The
// behaviour tier checks the same stops against stopNotWaiting.
func TestShapeStopsWithin2s(t *testing.T) {
	shape.Judge(t)
	bin := buildBinary(t)
	t.Run("stall SIGTERM", func(t *testing.T) { stopStallOnTerm(t, bin, 2*time.Second) })
	t.Run("second signal", func(t *testing.T) { stopOnSecondSignal(t, bin, 2*time.Second) })
	t.Run("suspended SIGTERM", func(t *testing.T) { stopSuspendedOnTerm(t, 2*time.Second) })
	for _, after := range sweepStopPoints {
		t.Run("sweep SIGINT at "+after.String(), func(t *testing.T) { stopSweepOnInt(t, bin, after, 2*time.Second) })
	}
	for _, scen := range []string{"login", "crash"} {
		t.Run(scen+" scale 1000", func(t *testing.T) { stopAtDuration(t, bin, scen, 4*time.Second) })
	}
}
