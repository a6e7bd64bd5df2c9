package scenarios

// turn applies the knob bound to key among ks through set(name, step);
// it reports whether key is bound.
func turn(ks []Knob, key string, set func(name string, step int)) bool {
	for _, k := range ks {
		if k.Key == key {
			set(k.Name, k.Step)
			return true
		}
	}
	return false
}

// MaxLoadSteps is the most load steps one SetLoad moves that matter: every
// scenario's whole scale of loads lies within it of any level (the longest
// is stall's, 10 ms steps across its default 1 s period). offtop sweep's
// --load is refused beyond it.
const MaxLoadSteps = 100

// clampSteps bounds a load delta to n steps either way, for a scale that n
// steps cross whole: SetLoad then costs at most n steps of work, and a
// level plus the delta cannot overflow, however large the delta.
func clampSteps(delta, n int) int { return min(max(delta, -n), n) }
