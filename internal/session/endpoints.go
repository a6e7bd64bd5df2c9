package session

import "github.com/offtop/offtop/internal/hist"

// Endpoint is one route of an attached program's HTTP server, as the
// agent's middleware (agent.Agent.Middleware) records it: the JSON field
// endpoints holds one per route, in order of Route.
type Endpoint struct {
	// Route is the route pattern the server's mux matched (r.Pattern), the
	// request's path where the handler sets none, "unmatched" for a 404
	// or 405 that no pattern matched, "other" for routes past the bound.
	Route string `json:"route"`
	// Count is the requests answered since the middleware started: the
	// sum of Status.
	Count int64 `json:"count"`
	// RatePerS is the requests per second over the window (or since the
	// middleware started, while that is shorter).
	RatePerS Rate `json:"rate_per_s"`
	// Latency is the handler's time, from the request reaching the
	// middleware to the handler's return, over the window.
	Latency hist.Summary `json:"latency"`
	// Status counts the responses since the middleware started by class.
	Status StatusCounts `json:"status"`
}

// StatusCounts are responses by status class: 1xx is a switch of
// protocol (101, or a hijacked connection), and a code of 600..999 counts
// as 5xx.
type StatusCounts struct {
	S1xx int64 `json:"1xx"`
	S2xx int64 `json:"2xx"`
	S3xx int64 `json:"3xx"`
	S4xx int64 `json:"4xx"`
	S5xx int64 `json:"5xx"`
}

// Total is the sum of the classes.
func (c StatusCounts) Total() int64 { return c.S1xx + c.S2xx + c.S3xx + c.S4xx + c.S5xx }
