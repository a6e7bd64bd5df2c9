package ui

import (
	"testing"

	"github.com/offtop/offtop/internal/scenarios"
)

// TestReadoutValueFormatsFromUnit: a readout is formatted by the unit it
// was made with, not by its key (a key without a suffix still shows its
// unit; bytes are MiB, 2^20), and a label naming the unit keeps it once.
func TestReadoutValueFormatsFromUnit(t *testing.T) {
	for _, c := range []struct {
		r    scenarios.Readout
		want string
	}{
		{scenarios.Millis("lag", "lag", 2500000, true), "2.5 ms"},
		{scenarios.Num("rate", "arrivals", 40).In(scenarios.UnitPerSec), "40/s"},
		{scenarios.Num("fast", "/fast", 12).In(scenarios.UnitRPS), "12 rps"},
		{scenarios.Num("heap", "heap", 3<<20).In(scenarios.UnitBytes), "3 MiB"},
		{scenarios.Num("busy", "busy", 50).In(scenarios.UnitPercent), "50%"},
		{scenarios.Num("hold", "hold", 2).In(scenarios.UnitSeconds), "2 s"},
		{scenarios.Num("x_ms", "x", 7), "7"}, // a key's suffix alone is not a unit
		{scenarios.Num("fast_rps", "/fast rps", 9).In(scenarios.UnitRPS), "9"},
		{scenarios.NA("y_ms", "y").In(scenarios.UnitMS), "n/a"},
	} {
		if got := readoutValue(c.r); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}
