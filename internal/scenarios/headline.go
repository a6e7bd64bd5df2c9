package scenarios

import "time"

// HeadlineSpec names a scenario's headline: the one figure to watch, the
// latency of what the scenario exists to show. The
// session keeps a histogram of it per pool size; the figure shown is its
// p99 in Unit.
type HeadlineSpec struct {
	// Name is what is measured, as the JSON field headline and the screen
	// say it: "ping", "file read", "request".
	Name string
	// Unit is the figure's unit; every headline today is a latency in ms.
	Unit string
	// LowerBetter says which way is better; the sizes panel marks the best
	// size by it.
	LowerBetter bool
	// FromProbe says the headline is the Loop probe itself (stall): the
	// session feeds it from the probe, the scenario reports nothing.
	FromProbe bool
}

// Label is the headline figure as the screen names it: "ping p99".
func (h HeadlineSpec) Label() string { return h.Name + " p99" }

// Rule is the best-size rule in words: "lowest ping p99".
func (h HeadlineSpec) Rule() string {
	if h.LowerBetter {
		return "lowest " + h.Label()
	}
	return "highest " + h.Label()
}

// ObserveServed reports one request served at endpoint, d from arrival to
// response, to the session (Env.Served); a no-op when the Env has none.
func (e Env) ObserveServed(endpoint string, d time.Duration) {
	if e.Served != nil {
		e.Served(endpoint, d)
	}
}

// ObserveHeadline reports one headline observation of d, which ended now,
// to the session (Env.Headline); a no-op when the Env has none (tests).
func (e Env) ObserveHeadline(d time.Duration) {
	if e.Headline != nil {
		e.Headline(d)
	}
}
