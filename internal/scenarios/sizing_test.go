package scenarios

import "testing"

// TestEveryScenarioHasASizing: each registered scenario names its rule
// in the registry's sizing, none falls back unnoticed.
func TestEveryScenarioHasASizing(t *testing.T) {
	for _, n := range Names() {
		s := registry[n].Sizing
		if s.Rule == 0 || s.Rule.String() == "none" {
			t.Errorf("%s: no sizing rule", n)
		}
	}
	if Sizing("io").SweepLoad != 2 || ioRates[ioStartRate+Sizing("io").SweepLoad] != 160 {
		t.Errorf("io sweeps at %d calls/s, want 160", ioRates[ioStartRate+Sizing("io").SweepLoad])
	}
}
