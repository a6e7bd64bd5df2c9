package session

import "github.com/offtop/offtop/internal/hist"

// LoadClient is the figures of the HTTP load offtop drives against an
// attached program (offtop attach --load; package load), measured by the
// client: set beside the program's Endpoints, their difference is the
// time spent outside the handler (the network, the server's accept and
// queue).
type LoadClient struct {
	// Spec is the load as given (load.Spec's String).
	Spec string `json:"spec"`
	// Targets are the spec's endpoints, in its order.
	Targets []LoadTarget `json:"targets"`
}

// LoadTarget is one endpoint of the load.
type LoadTarget struct {
	// Target is the path and query requested.
	Target string `json:"target"`
	// Route is the program's route (an Endpoint's Route) this target's
	// requests are recorded under by the middleware; "" when none is.
	Route string `json:"route"`
	// AskedPerS is the rate the spec asks for.
	AskedPerS Rate `json:"asked_per_s"`
	// Sent is the requests sent since the load began: answered, errors
	// and InFlight (sent, not ended yet).
	Sent     int64 `json:"sent"`
	InFlight int64 `json:"in_flight"`
	// RatePerS is the requests sent per second over the window (or since
	// the load began while that is shorter).
	RatePerS Rate `json:"rate_per_s"`
	// Latency is from the time each request was due to its answer (or its
	// timeout), over the window: a stalled service shows its stall here.
	Latency hist.Summary `json:"latency"`
	// Status counts the answers since the load began by class.
	Status StatusCounts `json:"status"`
	// Errors counts the requests that got no answer (refused, reset, timed
	// out) since the load began; ErrorsWindow those over the window, Error
	// the last one's text ("" when none).
	Errors       int64  `json:"errors"`
	ErrorsWindow int64  `json:"errors_window"`
	Error        string `json:"error"`
	// Late counts the requests sent more than 5 ms (load.LateAfter) after they were
	// due (the load's own lateness: the client, not the service, was
	// behind); LateMax is the largest lateness over the window.
	Late    int64  `json:"late"`
	LateMax Millis `json:"late_max_ms"`
	// BySize is the latency (from due time) of the requests due while
	// each pool size was in force, keyed by workers, for the screen's
	// sizes table; not in the stream.
	BySize map[int]hist.Summary `json:"-"`
}
