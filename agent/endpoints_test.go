package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/session"
)

// serve sends one request of method and path through h, as a server would
// after routing nothing: the recorder stands in for the connection.
func serve(h http.Handler, method, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
	return w
}

// byRoute is the read's endpoint of route; ok false when it has none.
func byRoute(eps []session.Endpoint, route string) (session.Endpoint, bool) {
	for _, e := range eps {
		if e.Route == route {
			return e, true
		}
	}
	return session.Endpoint{}, false
}

// TestMiddlewareReadsHandlerTime: a handler that takes exactly 20 ms on
// the middleware's clock reads p50 20 ms within 1 ms, under the mux's
// pattern (read after the mux matched), with its rate over the time the
// middleware has watched.
func TestMiddlewareReadsHandlerTime(t *testing.T) {
	fake := clock.NewFake(time.Unix(1_000_000, 0))
	e := newEndpoints(5*time.Second, fake.Now)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /work/{id}", func(w http.ResponseWriter, r *http.Request) {
		fake.Advance(20 * time.Millisecond)
	})
	h := e.wrap(mux)
	if got := e.read(); got == nil || len(got) != 0 {
		t.Fatalf("in use, before a request: %+v, want an empty list", got)
	}
	for i := range 100 {
		if w := serve(h, http.MethodGet, fmt.Sprintf("/work/%d", i)); w.Code != http.StatusOK {
			t.Fatalf("status %d", w.Code)
		}
	}
	eps := e.read()
	if len(eps) != 1 {
		t.Fatalf("endpoints %+v, want one route", eps)
	}
	ep := eps[0]
	if ep.Route != "GET /work/{id}" || ep.Count != 100 || ep.Status.S2xx != 100 || ep.Latency.Count != 100 {
		t.Fatalf("endpoint %+v, want GET /work/{id} with 100 requests, all 2xx", ep)
	}
	if d := ep.Latency.P50 - 20*time.Millisecond; d < -time.Millisecond || d > time.Millisecond {
		t.Errorf("p50 %v, want 20ms within 1ms", ep.Latency.P50)
	}
	if ep.Latency.Max < 20*time.Millisecond || ep.Latency.Max > 21*time.Millisecond {
		t.Errorf("max %v, want 20ms (within hist's 1%%)", ep.Latency.Max)
	}
	// 100 requests in the 2 s the route has been watched (the window is 5
	// s): its span starts with the route's first request, 20 ms in.
	if ep.RatePerS < 49 || ep.RatePerS > 51 {
		t.Errorf("rate %v/s, want 50/s within 2%%", ep.RatePerS)
	}
	// Past the window the latency goes; the counts since the start stay.
	fake.Advance(6 * time.Second)
	ep = e.read()[0]
	if ep.Latency.Count != 0 || ep.RatePerS != 0 || ep.Count != 100 {
		t.Errorf("past the window: %+v, want no latency, rate 0, count 100", ep)
	}
}

// TestMiddlewareNotInUse: the stream's endpoints are null until
// Middleware is called.
func TestMiddlewareNotInUse(t *testing.T) {
	e := newEndpoints(time.Second, nil)
	if got := e.read(); got != nil {
		t.Fatalf("no wrap: %+v, want nil", got)
	}
}

// TestMiddlewareStatusClasses: each response counts in its class, over a
// real server: an implicit 200, a redirect, a pattern's own 404 (its
// route, not unmatched), a 503, a panic before writing (5xx, the panic
// reaches the server), interim 103 then 200 (2xx), a hijack (1xx), and a
// flush through the writer's http.Flusher.
func TestMiddlewareStatusClasses(t *testing.T) {
	e := newEndpoints(5*time.Second, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusFound) })
	mux.HandleFunc("/item/{id}", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	mux.HandleFunc("/boom", func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) })
	mux.HandleFunc("/hints", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusEarlyHints)
		io.WriteString(w, "late")
	})
	mux.HandleFunc("/flush", func(w http.ResponseWriter, r *http.Request) {
		f, ok := w.(http.Flusher)
		if !ok {
			t.Error("the middleware's writer is not an http.Flusher")
			return
		}
		io.WriteString(w, "a")
		f.Flush()
		if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Second)); err != nil {
			t.Errorf("ResponseController through the middleware: %v", err)
		}
	})
	mux.HandleFunc("/hijack", func(w http.ResponseWriter, r *http.Request) {
		c, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: close\r\n\r\n")
		rw.Flush()
		c.Close()
	})
	// served gets each request's path once the middleware has recorded it:
	// a client can read a hijacked or cut response before that.
	served := make(chan string, 8)
	wrapped := e.wrap(mux)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { served <- r.URL.Path }()
		wrapped.ServeHTTP(w, r)
	}))
	defer srv.Close()
	// No connection is reused, so the transport retries no request.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"/ok", "/moved", "/item/7", "/busy", "/boom", "/hints", "/flush", "/hijack"} {
		resp, err := client.Get(srv.URL + p)
		if err != nil {
			if p == "/boom" {
				continue // the server cut the connection
			}
			t.Fatalf("%s: %v", p, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for range 8 {
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Fatal("a handler did not return within 10 s")
		}
	}
	want := map[string]session.StatusCounts{
		"/ok": {S2xx: 1}, "/moved": {S3xx: 1}, "/item/{id}": {S4xx: 1}, "/busy": {S5xx: 1}, "/boom": {S5xx: 1},
		"/hints": {S2xx: 1}, "/flush": {S2xx: 1}, "/hijack": {S1xx: 1},
	}
	eps := e.read()
	for route, st := range want {
		ep, ok := byRoute(eps, route)
		if !ok {
			t.Errorf("%s: no endpoint in %+v", route, eps)
			continue
		}
		if ep.Status != st || ep.Count != 1 || ep.Latency.Count != 1 {
			t.Errorf("%s: %+v, want status %+v, count 1", route, ep, st)
		}
	}
	if len(eps) != len(want) {
		t.Errorf("%d endpoints, want %d: %+v", len(eps), len(want), eps)
	}
	for i := 1; i < len(eps); i++ {
		if eps[i-1].Route >= eps[i].Route {
			t.Errorf("not in order of route: %q before %q", eps[i-1].Route, eps[i].Route)
		}
	}
}

// retained is the heap in use after a collection, in bytes.
func retained() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestMiddlewareRouteBound: a handler that sets no pattern, hit on 10,000
// distinct paths, keeps MaxRoutes routes and counts the rest as other;
// the memory held after 10,000 paths is what it was after the first
// MaxRoutes+1 (runtime.MemStats).
func TestMiddlewareRouteBound(t *testing.T) {
	e := newEndpoints(5*time.Second, nil)
	h := e.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	const paths = 10_000
	before := retained()
	i := 0
	for ; i <= MaxRoutes; i++ {
		serve(h, http.MethodGet, fmt.Sprintf("/p/%d", i))
	}
	atBound := retained()
	for ; i < paths; i++ {
		serve(h, http.MethodGet, fmt.Sprintf("/p/%d", i))
	}
	after := retained()
	eps := e.read()
	if len(eps) != MaxRoutes+1 {
		t.Fatalf("%d routes after %d paths, want %d and other", len(eps), paths, MaxRoutes)
	}
	other, ok := byRoute(eps, RouteOther)
	if !ok || other.Count != paths-MaxRoutes || other.Status.S2xx != paths-MaxRoutes {
		t.Fatalf("other: %+v, want %d requests", other, paths-MaxRoutes)
	}
	grown := int64(after) - int64(atBound)
	t.Logf("heap: %d KiB for %d routes and other; %+d KiB more after %d paths", (int64(atBound)-int64(before))>>10, MaxRoutes, grown>>10, paths)
	if grown > 256<<10 {
		t.Errorf("the heap grew %d KiB from %d paths to %d: the bound does not hold", grown>>10, MaxRoutes+1, paths)
	}
}

// TestMiddlewareUnmatchedBounded: 10,000 distinct paths no pattern of the
// mux matches (404) and a method it does not serve (405) are one route,
// unmatched; a path longer than MaxRouteBytes is cut.
func TestMiddlewareUnmatchedBounded(t *testing.T) {
	e := newEndpoints(5*time.Second, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /only", func(w http.ResponseWriter, r *http.Request) {})
	h := e.wrap(mux)
	for i := range 10_000 {
		serve(h, http.MethodGet, fmt.Sprintf("/nothing/%d", i))
	}
	if w := serve(h, http.MethodPost, "/only"); w.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST /only: %d, want 405", w.Code)
	}
	eps := e.read()
	if len(eps) != 1 || eps[0].Route != RouteUnmatched || eps[0].Count != 10_001 || eps[0].Status.S4xx != 10_001 {
		t.Fatalf("endpoints %+v, want unmatched alone with 10001 4xx", eps)
	}

	long := "/" + strings.Repeat("é", MaxRouteBytes) // 2 bytes a rune
	bare := newEndpoints(time.Second, nil)
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/x", nil)
	r.URL.Path = long
	bare.wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(w, r)
	eps = bare.read()
	if len(eps) != 1 || len(eps[0].Route) != MaxRouteBytes-1 || !strings.HasPrefix(long, eps[0].Route) || !utf8.ValidString(eps[0].Route) {
		t.Errorf("routes %+v: want the long path cut to %d bytes at a rune", eps, MaxRouteBytes-1)
	}
}

// TestMiddlewareInStream: over real HTTP, the agent's stream carries
// endpoints null until Middleware is in use, then the routes served
// through it; the agent's own requests are not among them.
func TestMiddlewareInStream(t *testing.T) {
	a, err := New(Options{Name: "svc", Interval: 20 * time.Millisecond, Window: time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	mux := http.NewServeMux()
	a.Mount(mux)
	mux.HandleFunc("GET /ping", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "pong\n") })

	plain := httptest.NewServer(mux)
	defer plain.Close()
	line := firstLine(t, plain.URL+DefaultPath+"stream", func(m map[string]json.RawMessage) bool { return true })
	if string(line["endpoints"]) != "null" {
		t.Fatalf("no middleware: endpoints %s, want null", line["endpoints"])
	}

	srv := httptest.NewServer(a.Middleware(mux))
	defer srv.Close()
	for range 3 {
		resp, err := http.Get(srv.URL + "/ping")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	line = firstLine(t, srv.URL+DefaultPath+"stream", func(m map[string]json.RawMessage) bool {
		var eps []session.Endpoint
		return json.Unmarshal(m["endpoints"], &eps) == nil && len(eps) > 0 && eps[0].Count == 3
	})
	var eps []session.Endpoint
	if err := json.Unmarshal(line["endpoints"], &eps); err != nil {
		t.Fatal(err)
	}
	if len(eps) != 1 || eps[0].Route != "GET /ping" || eps[0].Status.S2xx != 3 || eps[0].Latency.Count != 3 {
		t.Fatalf("endpoints %+v, want GET /ping alone, 3 requests (the stream's own not counted)", eps)
	}
}

// firstLine reads the stream at url until a line satisfies ok (within
// 10 s) and returns it.
func firstLine(t *testing.T, url string, ok func(map[string]json.RawMessage) bool) map[string]json.RawMessage {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	deadline := time.Now().Add(10 * time.Second)
	for sc.Scan() && time.Now().Before(deadline) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if ok(m) {
			return m
		}
	}
	t.Fatalf("%s: no line as wanted (%v)", url, sc.Err())
	return nil
}

// TestMiddlewareMemoryBound: the route table at its largest (MaxRoutes
// routes, other and unmatched, each with requests in every tenth of the
// window) holds what MaxRoutes documents: 288 KiB a route, under 20 MiB
// in all (runtime.MemStats).
func TestMiddlewareMemoryBound(t *testing.T) {
	fake := clock.NewFake(time.Unix(1_000_000, 0))
	const window = 5 * time.Second
	before := retained()
	e := newEndpoints(window, fake.Now)
	mux := http.NewServeMux()
	for i := range MaxRoutes + 1 { // the last one is other
		mux.HandleFunc(fmt.Sprintf("/r%d", i), func(http.ResponseWriter, *http.Request) {})
	}
	h := e.wrap(mux)
	for range 10 {
		for i := range MaxRoutes + 1 {
			serve(h, http.MethodGet, fmt.Sprintf("/r%d", i))
		}
		serve(h, http.MethodGet, "/none")
		fake.Advance(window / 10)
	}
	held := int64(retained()) - int64(before)
	if n := len(e.read()); n != MaxRoutes+2 {
		t.Fatalf("%d routes, want %d, other and unmatched", n, MaxRoutes)
	}
	t.Logf("heap: %d KiB for %d routes with every slot in use (%d KiB a route)", held>>10, MaxRoutes+2, held>>10/(MaxRoutes+2))
	if held > 20<<20 {
		t.Errorf("the full table holds %d KiB, over the 19 MiB MaxRoutes says", held>>10)
	}
	runtime.KeepAlive(e)
}

// TestMiddlewareFilesPerSize: each request the middleware records is
// also filed under the program's size row in force (sizes[].served, by
// route), so a size's route p99 is that size's alone.
func TestMiddlewareFilesPerSize(t *testing.T) {
	p := newPool(t, 1)
	release := make(chan struct{})
	defer close(release)
	// A task held running: the pool is not idle, so its row is held.
	if err := p.Submit(func() { <-release }, nil); err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Name: "svc", Pool: p, Interval: 20 * time.Millisecond, Window: time.Second, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	mux := http.NewServeMux()
	a.Mount(mux)
	mux.HandleFunc("GET /ping", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "pong\n") })
	srv := httptest.NewServer(a.Middleware(mux))
	defer srv.Close()
	served := func(m map[string]json.RawMessage) int64 {
		var rows []session.SizeJSON
		if json.Unmarshal(m["sizes"], &rows) != nil {
			return -1
		}
		for _, r := range rows {
			if r.Current {
				return r.Served["GET /ping"].Count
			}
		}
		return -1
	}
	// The row settles (the Loop drained the size before) within a few
	// samples; requests sent before are left out, so send until one lands.
	firstLine(t, srv.URL+DefaultPath+"stream", func(m map[string]json.RawMessage) bool {
		if served(m) >= 3 {
			return true
		}
		resp, err := http.Get(srv.URL + "/ping")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return false
	})
}

// TestMiddlewareNoRouteFromAPath: a request with no pattern is filed
// under its path only for a handler that never sets one, and only for a
// path in clean form; behind a mux, a path it redirects with no pattern
// ("//x/") is unmatched, so a client cannot fill the route table with
// paths of its choosing (the mux's own redirects to a route, "/a/../ping"
// and "/dir", carry that route's pattern and count under it, as 3xx).
func TestMiddlewareNoRouteFromAPath(t *testing.T) {
	plain := newEndpoints(5*time.Second, time.Now)
	h := plain.wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for _, p := range []string{"/a", "/a/b/", "//evil.com/x", "/a/../b", "/a/./b"} {
		serve(h, http.MethodGet, p)
	}
	var got []string
	for _, ep := range plain.read() {
		got = append(got, fmt.Sprintf("%s:%d", ep.Route, ep.Count))
	}
	if want := "/a:1 /a/b/:1 unmatched:3"; strings.Join(got, " ") != want {
		t.Errorf("a handler with no patterns: routes %v, want %s", got, want)
	}

	e := newEndpoints(5*time.Second, time.Now)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ping", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /dir/", func(http.ResponseWriter, *http.Request) {})
	h = e.wrap(mux)
	serve(h, http.MethodGet, "/ping")
	codes := map[string]int{}
	for i := range 70 {
		for _, p := range []string{fmt.Sprintf("//j%d/", i), "/a/../ping", "/dir"} {
			codes[p] = serve(h, http.MethodGet, p).Code
		}
	}
	got = nil
	for _, ep := range e.read() {
		got = append(got, fmt.Sprintf("%s:%d", ep.Route, ep.Count))
	}
	if want := "GET /dir/:70 GET /ping:71 unmatched:70"; strings.Join(got, " ") != want {
		t.Errorf("a mux: routes %v, want %s (answers %v)", got, want, codes)
	}
	for p, c := range codes {
		if c < 300 || c > 399 {
			t.Errorf("%s answered %d: want the mux's redirect (the case under test)", p, c)
		}
	}

	// A router that names some routes: once it has, a clean path it
	// answers with no pattern is no route either.
	named := newEndpoints(5*time.Second, time.Now)
	h = named.wrap(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/named" {
			r.Pattern = "GET /named"
		}
	}))
	serve(h, http.MethodGet, "/free")
	serve(h, http.MethodGet, "/named")
	serve(h, http.MethodGet, "/free2")
	got = nil
	for _, ep := range named.read() {
		got = append(got, fmt.Sprintf("%s:%d", ep.Route, ep.Count))
	}
	if want := "/free:1 GET /named:1 unmatched:1"; strings.Join(got, " ") != want {
		t.Errorf("a router naming some routes: %v, want %s", got, want)
	}
}
