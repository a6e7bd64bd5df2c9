package scenarios

// Knob is one live setting a scenario offers besides the common keys: the
// key that turns it and by how much, as data, so the key map, the help
// screen, --keys and the session need no code per scenario (the l and L
// keys of server's Loops, count's split, breakeven's payload kind).
type Knob struct {
	// Key is the key string that turns the knob (Bubble Tea's
	// KeyPressMsg.String(): "l", "L", "p").
	Key string
	// Name is what the knob sets ("loops", "split") and Unit its unit
	// ("" when it is a choice, "Loops"); Step is what one press adds (+1,
	// -1; a choice cycles forward on +1).
	Name, Unit string
	Step       int
	// Help is the one line the help screen shows for the key.
	Help string
}

// Knobber is a scenario with Knobs (Meta.Knobs). Turn applies one press
// of the knob bound to key (Knob.Step) and is a no-op for a key it has no
// knob for.
type Knobber interface {
	Turn(key string)
}

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
