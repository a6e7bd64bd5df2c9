package scenarios

// SizeRule names how the size to pick is found for a scenario: the kind
// of workload decides which figure matters.
type SizeRule int

const (
	// RuleKnee is for throughput-bound scenarios (count, breakeven): the
	// knee of the Universal Scalability Law fitted to throughput, the
	// size after which one more worker adds under a quarter of one
	// worker's throughput (fit.USL.Knee).
	RuleKnee SizeRule = iota + 1
	// RuleLatency is for scenarios whose headline is a latency a user
	// waits on (server, login): the size with the lowest headline p99
	// among those that keep the Loop's p99 within LoopP99BoundMS.
	RuleLatency
	// RuleLittle is for open-loop I/O (io): Little's law, L = arrival
	// rate x service time, both measured (fit.LittleWorkers).
	RuleLittle
)

// LoopP99BoundMS is the Loop probe's p99 a size must stay within to be
// picked by RuleLatency, in ms: 50 ms, the budget the RAIL model gives a
// main thread to handle an input before a user perceives the delay.
const LoopP99BoundMS = 50.0

// String is the rule's JSON name: "knee", "latency", "little".
func (r SizeRule) String() string {
	switch r {
	case RuleKnee:
		return "knee"
	case RuleLatency:
		return "latency"
	case RuleLittle:
		return "little"
	}
	return "none"
}

// SizingSpec is a scenario's sizing metadata, beside its headline.
type SizingSpec struct {
	Rule SizeRule
	// SweepLoad is the load step a sweep runs the scenario at, as that
	// many presses of ] from its start (negative: [). io sweeps at 160
	// calls/s (+2 from 40): the rate at which Little's law needs 8
	// workers, so a sweep up to 16 spans too few and enough.
	SweepLoad int
}

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
