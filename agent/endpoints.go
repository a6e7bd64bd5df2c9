package agent

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/session"
)

// Bounds of the middleware's route table.
const (
	// MaxRoutes is how many routes get figures of their own; a request
	// of any route first seen after them counts under RouteOther. The
	// two labels below are not among them. Each route holds one
	// windowed histogram: 72 KiB from its first request, up to 288 KiB
	// once requests have come in every tenth of a window, so the table
	// holds at most about 19 MiB.
	MaxRoutes = 64
	// MaxRouteBytes bounds a route's label: a longer path is cut there.
	MaxRouteBytes = 128
)

// Route labels that are not a pattern nor a path (neither holds a "/").
const (
	// RouteOther is every route past MaxRoutes, counted together.
	RouteOther = "other"
	// RouteUnmatched is every request with no pattern matched
	// (r.Pattern empty) that names no route: answered 404 or 405, a path
	// not in clean form (path.Clean, a trailing slash allowed: "//x/",
	// "/a/../b"), or any request once the handler has set a pattern for
	// one (a mux that names its routes: what it does not match is none).
	RouteUnmatched = "unmatched"
)

// Middleware returns h with each request's latency and status recorded
// by route, for the stream's endpoints (docs/json-lines.md): wrap the
// mux your server serves, http.ListenAndServe(addr, a.Middleware(mux)).
//
// A request's route is r.Pattern as h left it (http.ServeMux sets it
// once it has matched), so a mux wrapped in other middleware must be
// handed the same *http.Request; with no pattern the route is the path
// (cut to MaxRouteBytes) for a handler that never sets one, else
// RouteUnmatched (see there). At most
// MaxRoutes routes are kept; later ones count as RouteOther. The
// latency is from the request reaching the middleware to h's return;
// the status is the code h wrote (200 when it wrote none, 500 when it
// panicked before writing; the panic goes on). Requests under
// DefaultPath (the agent's own) are not recorded.
//
// The ResponseWriter h gets also implements http.Flusher, http.Hijacker
// (an error wrapping http.ErrNotSupported where the server's writer
// cannot hijack) and io.ReaderFrom, and unwraps for
// http.ResponseController. Calling
// Middleware again (another server) records into the same routes; the
// stream's endpoints are null until the first call.
func (a *Agent) Middleware(h http.Handler) http.Handler { return a.ep.wrap(h) }

// endpoints is the middleware's route table.
type endpoints struct {
	now    func() time.Time
	since  func(time.Time) time.Duration // time.Since for time.Now: one monotonic read
	window time.Duration
	// served, when set, also takes each request's route and latency: the
	// session's size rows (SizeRow.Served), the route's figures per size.
	served func(route string, d time.Duration)

	started   atomic.Pointer[time.Time] // the first wrap; nil: not in use
	full      atomic.Bool               // MaxRoutes routes are kept
	patterned atomic.Bool               // a request had a pattern: paths are no routes

	mu     sync.RWMutex // guards routes and named
	routes map[string]*route
	named  int // routes other than RouteOther and RouteUnmatched
}

// route is one route's figures.
type route struct {
	lat    *hist.Recorder
	status [5]atomic.Int64 // 1xx..5xx
}

func newEndpoints(window time.Duration, now func() time.Time) *endpoints {
	since := time.Since
	if now == nil {
		now = time.Now
	} else {
		since = func(t time.Time) time.Duration { return now().Sub(t) }
	}
	return &endpoints{now: now, since: since, window: window, routes: map[string]*route{}}
}

func (e *endpoints) wrap(h http.Handler) http.Handler {
	if e.started.Load() == nil {
		t := e.now()
		e.started.CompareAndSwap(nil, &t)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, DefaultPath) {
			h.ServeHTTP(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		start := e.now()
		returned := false
		defer func() {
			code := sw.code
			switch {
			case code == 0 && !returned:
				code = http.StatusInternalServerError
			case code == 0:
				code = http.StatusOK
			}
			e.record(r, code, e.since(start), start)
		}()
		h.ServeHTTP(sw, r)
		returned = true
	})
}

// record counts one response of r that took d from start.
func (e *endpoints) record(r *http.Request, code int, d time.Duration, start time.Time) {
	label := r.Pattern
	switch {
	case label != "":
		if !e.patterned.Load() {
			e.patterned.Store(true)
		}
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed,
		e.patterned.Load(), !clean(r.URL.Path):
		label = RouteUnmatched
	default:
		label = cut(r.URL.Path)
	}
	rt := e.route(label)
	rt.lat.RecordAt(hist.Sample{NS: int64(d), At: start.Add(d)})
	rt.status[class(code)].Add(1)
	if e.served != nil {
		e.served(label, d)
	}
}

// clean reports whether p is in the form path.Clean gives, a trailing
// slash allowed: "/a/b/" is, "//a", "/a/./b" and "" are not.
func clean(p string) bool {
	c := path.Clean(p)
	if p != "/" && strings.HasSuffix(p, "/") {
		c += "/"
	}
	return c == p
}

// class is the index of code's class in route.status: 1xx..5xx, 600..999
// as 5xx.
func class(code int) int { return min(max(code/100, 1), 5) - 1 }

// cut is label cut to MaxRouteBytes, at a rune's start.
func cut(label string) string {
	if len(label) <= MaxRouteBytes {
		return label
	}
	n := MaxRouteBytes
	for n > 0 && !utf8.RuneStart(label[n]) {
		n--
	}
	return label[:n]
}

// route is label's figures, made on its first request: RouteOther's once
// MaxRoutes are kept.
func (e *endpoints) route(label string) *route {
	e.mu.RLock()
	rt := e.routes[label]
	e.mu.RUnlock()
	if rt != nil {
		return rt
	}
	special := label == RouteOther || label == RouteUnmatched
	if !special && e.full.Load() {
		label, special = RouteOther, true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if rt = e.routes[label]; rt != nil {
		return rt
	}
	if !special && e.named >= MaxRoutes {
		return e.routeLocked(RouteOther)
	}
	if !special {
		e.named++
		e.full.Store(e.named >= MaxRoutes)
	}
	rt = &route{lat: hist.NewRecorder(e.window, e.now)}
	e.routes[strings.Clone(label)] = rt // not the request's memory
	return rt
}

// routeLocked is label's figures, made if new. Callers hold mu.
func (e *endpoints) routeLocked(label string) *route {
	rt := e.routes[label]
	if rt == nil {
		rt = &route{lat: hist.NewRecorder(e.window, e.now)}
		e.routes[label] = rt
	}
	return rt
}

// read is every route's figures in order of route; nil until a wrap.
func (e *endpoints) read() []session.Endpoint {
	started := e.started.Load()
	if started == nil {
		return nil
	}
	type kept struct {
		label string
		rt    *route
	}
	e.mu.RLock()
	all := make([]kept, 0, len(e.routes))
	for label, rt := range e.routes {
		all = append(all, kept{label, rt})
	}
	e.mu.RUnlock()
	out := make([]session.Endpoint, len(all))
	age := e.now().Sub(*started)
	for i, k := range all {
		lat, span := k.rt.lat.WindowSpan()
		st := k.rt.counts()
		out[i] = session.Endpoint{Route: k.label, Count: st.Total(), Latency: lat, Status: st}
		if span = min(span, age); span > 0 {
			out[i].RatePerS = session.Rate(float64(lat.Count) / span.Seconds())
		}
	}
	slices.SortFunc(out, func(a, b session.Endpoint) int { return strings.Compare(a.Route, b.Route) })
	return out
}

func (rt *route) counts() session.StatusCounts {
	return session.StatusCounts{S1xx: rt.status[0].Load(), S2xx: rt.status[1].Load(), S3xx: rt.status[2].Load(),
		S4xx: rt.status[3].Load(), S5xx: rt.status[4].Load()}
}

// statusWriter remembers the final status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	code int // 0 until the handler writes a final status
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) { // other 1xx are interim
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// ReadFrom copies src to the response, through the inner writer's
// ReadFrom where it has one (sendfile).
func (w *statusWriter) ReadFrom(src io.Reader) (int64, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return io.Copy(w.ResponseWriter, src)
}

// Flush flushes the inner writer where it can (http.Flusher has no
// error to give).
func (w *statusWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack hijacks the inner writer's connection; the response then
// counts as 1xx.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err == nil && w.code == 0 {
		w.code = http.StatusSwitchingProtocols
	}
	return c, rw, err
}

// Unwrap is the inner writer, for http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
