package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/session"
)

// attachedUnderLoad is an attached program with three routes under a
// load of /ping, whose rows have served figures and client figures by
// size.
func attachedUnderLoad() session.Snapshot {
	s := richSnapshot()
	s.Remote, s.Scenario, s.Workers = "127.0.0.1:7070", "service", 2
	s.Endpoints = []session.Endpoint{
		{Route: "/fib", RatePerS: 40, Latency: hist.Summary{P99: 88 * time.Millisecond, Count: 200}},
		{Route: "/ping", RatePerS: 20, Latency: hist.Summary{P99: 400 * time.Microsecond, Count: 100}},
		{Route: "/pool", RatePerS: 1, Latency: hist.Summary{P99: 100 * time.Microsecond, Count: 5}},
		{Route: "unmatched"},
	}
	s.LoadClient = &session.LoadClient{Spec: "/ping=20/s", Targets: []session.LoadTarget{{
		Target: "/ping", Route: "/ping", Latency: hist.Summary{P99: 7 * time.Millisecond, Count: 100},
		BySize: map[int]hist.Summary{1: {P99: 31 * time.Millisecond, Count: 50}, 2: {P99: 7 * time.Millisecond, Count: 50}},
	}}}
	s.Sizes = session.SizeRows{
		{Scenario: "service", Workers: 1, GOMAXPROCS: s.GOMAXPROCS, Held: 5 * time.Second,
			Served: map[string]hist.Summary{"/ping": {P99: 900 * time.Microsecond, Count: 99}}},
		{Scenario: "service", Workers: 2, GOMAXPROCS: s.GOMAXPROCS, Held: 3 * time.Second, Current: true,
			Served: map[string]hist.Summary{"/ping": {P99: 400 * time.Microsecond, Count: 60}}},
	}
	return s
}

// TestHeadlineFeaturesRoute: attached under --load, the headline features
// the load's first target's route, the middleware's p99 and the client's
// beside it, the other routes after it; --route (Link.Route) as a route
// or a target's path features that one.
func TestHeadlineFeaturesRoute(t *testing.T) {
	s := attachedUnderLoad()
	l1 := oneSpace(ansi.Strip(headlinePanel(s, 120)[0]))
	for _, want := range []string{"▶ /ping p99 (5s) server 0.40 ms 20/s client 7 ms", "· /fib 88 ms 40/s"} {
		if !strings.Contains(l1, want) {
			t.Errorf("headline %q lacks %q", l1, want)
		}
	}
	if l1 := ansi.Strip(headlinePanel(s, 70)[0]); !strings.HasSuffix(l1, " client      7 ms +3 more") {
		t.Errorf("at 70 columns: %q, want the routes that do not fit counted as +3 more", l1)
	}
	s.Route = "/fib"
	if l1 := oneSpace(ansi.Strip(headlinePanel(s, 120)[0])); !strings.HasPrefix(l1, "▶ /fib p99 (5s) server 88 ms 40/s ·") || strings.Contains(l1, "client") {
		t.Errorf("--route /fib: %q, want /fib featured, no client figure (the load sends none)", l1)
	}
}

// TestRouteKeyCycles: e features the next route in the endpoints' order
// (unmatched left out), wrapping, and applies nothing.
func TestRouteKeyCycles(t *testing.T) {
	f := newFake()
	f.snap = attachedUnderLoad()
	m := New(f)
	next, _ := m.Update(m.Init()())
	m = next.(Model)
	var seen []string
	for range 4 {
		m, _ = press(t, m, "e")
		out := ansi.Strip(m.View().Content)
		i := strings.Index(out, "▶ ")
		if i < 0 {
			t.Fatalf("no headline:\n%s", out)
		}
		seen = append(seen, strings.Fields(out[i:])[1])
	}
	if got := strings.Join(seen, " "); got != "/pool /fib /ping /pool" {
		t.Errorf("e four times featured %q, want /pool /fib /ping /pool (from /ping, the load's)", got)
	}
	if len(f.Actions()) != 0 {
		t.Errorf("e applied %v", f.Actions())
	}
}

// TestSizesShowRouteColumns: sizes tried gets the featured route's p99 at
// each size, under --load the client's of the requests due at that size
// first (the figure a ranks by), then the middleware's.
func TestSizesShowRouteColumns(t *testing.T) {
	out := ansi.Strip(strings.Join(sizesPanel(attachedUnderLoad(), 100, 4), "\n"))
	for _, want := range []string{"client p99 ms  route p99 ms", "31          0.90", " 7          0.40"} {
		if !strings.Contains(out, want) {
			t.Errorf("sizes tried lacks %q:\n%s", want, out)
		}
	}
	s := attachedUnderLoad()
	s.Endpoints = nil
	if out := ansi.Strip(strings.Join(sizesPanel(s, 100, 4), "\n")); strings.Contains(out, "route p99") {
		t.Errorf("no middleware: route columns\n%s", out)
	}
}

// featuredModel is a model whose first sample is s.
func featuredModel(s session.Snapshot) Model {
	f := newFake()
	f.snap = s
	m := New(f)
	next, _ := m.Update(m.Init()())
	return next.(Model)
}

// resample is m after a newer sample s.
func resample(m Model, s session.Snapshot) Model {
	next, _ := m.Update(sampleMsg{sample{snap: s, seq: m.seq + 1}})
	return next.(Model)
}

// featured is the route m's headline features.
func featured(t *testing.T, m Model) string {
	t.Helper()
	out := ansi.Strip(m.View().Content)
	i := strings.Index(out, "▶ ")
	if i < 0 {
		t.Fatalf("no headline:\n%s", out)
	}
	return strings.Fields(out[i:])[1]
}

// TestBusiestRouteStaysFeatured: with no --route and no load, the
// busiest route at the first sample stays the headline when another
// becomes busier; only e moves it.
func TestBusiestRouteStaysFeatured(t *testing.T) {
	s := attachedUnderLoad()
	s.LoadClient = nil
	m := featuredModel(s)
	if got := featured(t, m); got != "/fib" {
		t.Fatalf("featured %q at first, want /fib (the busiest)", got)
	}
	s.Endpoints = append([]session.Endpoint(nil), s.Endpoints...)
	s.Endpoints[1].RatePerS = 400 // /ping now the busiest
	m = resample(m, s)
	if got := featured(t, m); got != "/fib" {
		t.Errorf("featured %q once /ping is busier, want /fib still", got)
	}
	m, _ = press(t, m, "e")
	if got := featured(t, m); got != "/ping" {
		t.Errorf("after e featured %q, want /ping (next after /fib)", got)
	}
}

// TestLoadTargetFeaturedOnceSeen: under --load, a first sample before the
// load's target has a route features the busiest for now, and the target
// once the program has its route (nothing pinned under a load).
func TestLoadTargetFeaturedOnceSeen(t *testing.T) {
	s := attachedUnderLoad()
	s.Endpoints = s.Endpoints[:1] // /fib only: /ping not requested yet
	s.LoadClient.Targets[0].Route = ""
	m := resample(featuredModel(s), attachedUnderLoad())
	if got := featured(t, m); got != "/ping" {
		t.Errorf("once /ping is seen the headline features %q, want /ping (the load's first target)", got)
	}
}

// TestFeaturedRouteGoneIsPickedAgain: a busiest route the program no
// longer has (another process on the address) is not kept: the new
// busiest is featured.
func TestFeaturedRouteGoneIsPickedAgain(t *testing.T) {
	s := attachedUnderLoad()
	s.LoadClient = nil
	m := featuredModel(s)
	s.Endpoints = []session.Endpoint{{Route: "/items", RatePerS: 5, Latency: hist.Summary{P99: time.Millisecond, Count: 10}}}
	if got := featured(t, resample(m, s)); got != "/items" {
		t.Errorf("after /fib went, the headline features %q, want /items", got)
	}
}
