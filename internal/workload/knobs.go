package workload

import "sort"

// The scenarios' knobs as data, so the key map, the help screen and
// --keys know them with no scenario linked; each scenario's registry
// entry lists its own (scenarios.Meta.Knobs) and binds them by Key.
var (
	// ServerKnobs: l and L, one Loop fewer or more.
	ServerKnobs = []Knob{
		{Key: "l", Name: "loops", Unit: "Loops", Step: -1, Help: "Loops"},
		{Key: "L", Name: "loops", Unit: "Loops", Step: 1, Help: "Loops"},
	}
	// BreakevenKnobs: s and S step the payload size, o switches the
	// payload kind (bytes, objects).
	BreakevenKnobs = []Knob{
		{Key: "o", Name: "payload", Step: 1, Help: "payload kind"},
		{Key: "s", Name: "size", Step: -1, Help: "payload size (breakeven)"},
		{Key: "S", Name: "size", Step: 1, Help: "payload size (breakeven)"},
	}
	// CountKnobs: p cycles the split.
	CountKnobs = []Knob{{Key: "p", Name: "split", Step: 1, Help: "split"}}
	// IOKnobs: c switches fib(20) before each call on or off.
	IOKnobs = []Knob{{Key: "c", Name: "cpu", Step: 1, Help: "CPU per call (io)"}}
)

// AllKnobs lists the knobs above, sorted by key, each key once (the
// first in the order server, breakeven, count, io that binds it).
func AllKnobs() []Knob {
	seen := map[string]bool{}
	var out []Knob
	for _, ks := range [][]Knob{ServerKnobs, BreakevenKnobs, CountKnobs, IOKnobs} {
		for _, k := range ks {
			if !seen[k.Key] {
				seen[k.Key] = true
				out = append(out, k)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
