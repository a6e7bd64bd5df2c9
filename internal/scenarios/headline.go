package scenarios

import "time"

// HeadlineSpec names a scenario's headline: the one figure to watch, the
// latency of what the scenario exists to show (DESIGN.md, Headline). The
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

// headlines is every registered scenario's headline, keyed by name.
var headlines = map[string]HeadlineSpec{
	"server":    {Name: "ping", Unit: "ms", LowerBetter: true},
	"login":     {Name: "file read", Unit: "ms", LowerBetter: true},
	"io":        {Name: "request", Unit: "ms", LowerBetter: true},
	"count":     {Name: "batch wall", Unit: "ms", LowerBetter: true},
	"breakeven": {Name: "move batch wall", Unit: "ms", LowerBetter: true},
	"crash":     {Name: "task wait+run", Unit: "ms", LowerBetter: true},
	"stall":     {Name: "probe", Unit: "ms", LowerBetter: true, FromProbe: true},
}

// Headline returns the headline of a registered scenario; a name with none
// gets the Loop probe (a scenario added without an entry still has a
// figure to watch, never a blank one).
func Headline(name string) HeadlineSpec {
	if h, ok := headlines[name]; ok {
		return h
	}
	return HeadlineSpec{Name: "probe", Unit: "ms", LowerBetter: true, FromProbe: true}
}

// ObserveHeadline reports one headline observation of d, which ended now,
// to the session (Env.Headline); a no-op when the Env has none (tests).
func (e Env) ObserveHeadline(d time.Duration) {
	if e.Headline != nil {
		e.Headline(d)
	}
}
