package scenarios

// Sizing returns the sizing of a registered scenario (Meta.Sizing); a
// name with none gets the knee, the rule that needs only throughput.
// crash and stall have no size to pick for: their lesson is survival and
// the probe itself; they fall back to the knee of their throughput.
func Sizing(name string) SizingSpec {
	if m, ok := registry[name]; ok && m.Sizing.Rule != 0 {
		return m.Sizing
	}
	return SizingSpec{Rule: RuleKnee}
}
