package load

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/testkit"
)

// A request vegeta took up 1 s after it was due and that was answered in
// 1 ms reads 1.001 s, and counts as late; one sent on time reads its
// answer's time.
func TestRecordFromDue(t *testing.T) {
	tg := &target{Target: Target{"/x", 10}, interval: 100 * time.Millisecond, pacer: newPacer(100*time.Millisecond, 5*time.Second, targetStep(0), maxLead)}
	l := &Load{spec: Spec{tg.Target}, targets: []*target{tg}}
	tg.lat, tg.late, tg.errs = newRec(), newRec(), newRec()
	began := time.Now().Add(-2 * time.Second)
	tg.pacer.base = began
	tg.pacer.off.Store(0)
	due := tg.pacer.due
	// Request 5, taken up 1 s after it was due.
	tg.record(&vegeta.Result{Seq: 5, Code: 200, Timestamp: due(5).Add(time.Second), Latency: time.Millisecond})
	// Request 6, on time, answered in 2 ms.
	tg.record(&vegeta.Result{Seq: 6, Code: 503, Timestamp: due(6), Latency: 2 * time.Millisecond})
	// Request 7: no answer.
	tg.record(&vegeta.Result{Seq: 7, Timestamp: due(7), Latency: time.Millisecond,
		Error: `Get "http://127.0.0.1:1/x": dial tcp 127.0.0.1:1: connect: connection refused`})
	tg.pacer.sent.Store(4) // one more in flight
	f := l.Figures(nil).Targets[0]
	if f.Sent != 4 || f.InFlight != 1 || f.Status.S2xx != 1 || f.Status.S5xx != 1 || f.Errors != 1 || f.Late != 1 {
		t.Fatalf("figures %+v: want 4 sent, one in flight, one 2xx, one 5xx, one error, one late", f)
	}
	if f.Latency.Count != 2 || f.Latency.Max < 1000*time.Millisecond || f.Latency.Max > 1012*time.Millisecond {
		t.Errorf("latency %+v: want 2 values, the largest 1.001 s (from its due time, not its send)", f.Latency)
	}
	if f.Error != "connection refused" {
		t.Errorf("error %q, want connection refused", f.Error)
	}
	if time.Duration(f.LateMax) < 990*time.Millisecond {
		t.Errorf("late max %v, want 1 s", time.Duration(f.LateMax))
	}
}

// The load counts every answer by class, and what it sent adds up to
// its answers and its errors once stopped.
func TestLoadStatusClasses(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/bad", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", 500) })
	mux.HandleFunc("GET /teapot/{n}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(418) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	spec, err := Parse("/ok=100/s,/bad=100/s,/teapot/3?x=1=100/s")
	if err != nil {
		t.Fatal(err)
	}
	// Check refuses the teapot (a 4xx); a service may answer so only
	// under the load, which counts it: started here without Check.
	if err := Check(srv.URL, spec[:2]); err != nil {
		t.Fatal(err)
	}
	l, err := Start(Options{Base: srv.URL, Spec: spec, Window: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	routes := []session.Endpoint{{Route: "/ok"}, {Route: "/bad"}, {Route: "GET /teapot/{n}"}, {Route: "unmatched"}}
	answered := func() bool {
		for _, tf := range l.Figures(routes).Targets {
			if tf.Status.Total() < 3 {
				return false
			}
		}
		return true
	}
	testkit.WaitFor(t, "3 answers at every target", 30*time.Second, answered)
	l.Stop()
	f := l.Figures(routes)
	if f.Spec != spec.String() || len(f.Targets) != 3 {
		t.Fatalf("figures %+v", f)
	}
	for i, want := range []struct {
		route string
		class func(session.StatusCounts) int64
	}{
		{"/ok", func(c session.StatusCounts) int64 { return c.S2xx }},
		{"/bad", func(c session.StatusCounts) int64 { return c.S5xx }},
		{"GET /teapot/{n}", func(c session.StatusCounts) int64 { return c.S4xx }},
	} {
		tf := f.Targets[i]
		if tf.Route != want.route {
			t.Errorf("%s: route %q, want %q", tf.Target, tf.Route, want.route)
		}
		if want.class(tf.Status) < 3 || want.class(tf.Status) != tf.Status.Total() {
			t.Errorf("%s: status %+v, want all of 3 or more in one class", tf.Target, tf.Status)
		}
		if tf.Sent != tf.Status.Total()+tf.Errors || tf.InFlight != 0 {
			t.Errorf("%s: sent %d != answers %d + errors %d", tf.Target, tf.Sent, tf.Status.Total(), tf.Errors)
		}
		if tf.AskedPerS != 100 || tf.Latency.Count == 0 {
			t.Errorf("%s: asked %v, latency count %d, answers %d, errors %d (%s)", tf.Target, tf.AskedPerS, tf.Latency.Count, tf.Status.Total(), tf.Errors, tf.Error)
		}
	}
	// Nothing is sent after Stop.
	sent := f.Targets[0].Sent
	if again := l.Figures(routes).Targets[0].Sent; again != sent {
		t.Errorf("sent %d after Stop, %d before", again, sent)
	}
}

// A service that refuses: each request is an error, its text the cause.
func TestLoadRefused(t *testing.T) {
	addr := closedAddr(t)
	spec, _ := Parse("/ping=200/s")
	l, err := Start(Options{Base: "http://" + addr, Spec: spec, Window: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	var f session.LoadTarget
	testkit.WaitFor(t, "3 refused requests", 30*time.Second, func() bool {
		f = l.Figures(nil).Targets[0]
		return f.Errors >= 3
	})
	if f.Errors < 3 || f.ErrorsWindow < 3 || f.Error != "connection refused" || f.Status.Total() != 0 || f.Route != "" {
		t.Fatalf("figures %+v: want 3 errors or more, connection refused, no answer, no route", f)
	}
}

func TestCheck(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ping", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("POST /only", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })
	mux.HandleFunc("/fib", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("n") == "" {
			http.Error(w, "n: want 0..40", http.StatusBadRequest)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, c := range []struct{ spec, err string }{
		{"/ping=1/s,/broken=1/s,/fib?n=3=1/s", ""},
		{"/ping=1/s,/nope=1/s", "/nope answers 404 Not Found"},
		{"/only=1/s", "/only answers 405 Method Not Allowed"},
		{"/fib=1/s", "/fib answers 400 Bad Request (the service refuses the request as written"},
		{"//evil.com/x=1/s", `//evil.com/x answers 307 Temporary Redirect to "/evil.com/x" (the load does not follow redirects`},
	} {
		spec, _ := Parse(c.spec)
		err := Check(srv.URL, spec)
		if (c.err == "") != (err == nil) || (err != nil && (!strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrTarget))) {
			t.Errorf("Check(%s): %v, want %q", c.spec, err, c.err)
		}
	}
	addr := closedAddr(t)
	spec, _ := Parse("/ping=1/s")
	if err := Check("http://"+addr, spec); err == nil || !strings.HasSuffix(err.Error(), "/ping: connection refused") {
		t.Errorf("Check on a closed port: %v, want connection refused", err)
	}
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func newRec() *hist.Recorder { return hist.NewRecorder(5*time.Second, nil) }

// TestRouterMatchesExpressPatterns: a Node program's routes are Express
// patterns; a target finds its route by them and reads back its name,
// as a ServeMux pattern does.
func TestRouterMatchesExpressPatterns(t *testing.T) {
	routes := []session.Endpoint{{Route: "/ping"}, {Route: "/users/:id"}, {Route: "/api/users/:id/posts"},
		{Route: "/files/*"}, {Route: "/opt/:id?"}, {Route: "GET /teapot/{n}"}, {Route: "unmatched"}, {Route: "other"}}
	var r router
	match := r.match(routes)
	for target, want := range map[string]string{
		"/ping":               "/ping",
		"/ping?x=1":           "/ping",
		"/users/42":           "/users/:id",
		"/users/42/more":      "",
		"/api/users/7/posts":  "/api/users/:id/posts",
		"/files/a/b.txt":      "/files/*",
		"/teapot/3":           "GET /teapot/{n}",
		"/opt/:id?":           "",
		"/users/:id":          "/users/:id",
		"/nothing/registered": "",
	} {
		if got := match(target); got != want {
			t.Errorf("%s: route %q, want %q", target, got, want)
		}
	}
}

// Held counts only the requests due since Mark, each from its due time,
// and those with no answer apart.
func TestHeldSinceMark(t *testing.T) {
	tg := &target{Target: Target{"/x", 10}, interval: 100 * time.Millisecond, pacer: newPacer(100*time.Millisecond, 5*time.Second, targetStep(0), maxLead)}
	l := &Load{spec: Spec{tg.Target}, targets: []*target{tg}}
	tg.lat, tg.late, tg.errs = newRec(), newRec(), newRec()
	if h := l.Held()[0]; h.Latency.Count != 0 || h.Errors != 0 {
		t.Fatalf("before a Mark: %+v, want nothing held", h)
	}
	l.Mark()
	mark := tg.heldAt
	tg.pacer.base = mark.Add(-time.Second) // request 10 is due at the mark
	tg.pacer.off.Store(0)
	due := func(seq uint64) time.Time { return tg.pacer.due(seq) }
	// Request 9 was due before the mark: the size before's.
	tg.record(&vegeta.Result{Seq: 9, Code: 200, Timestamp: due(9), Latency: 300 * time.Millisecond})
	// Request 10, due at the mark, sent 200 ms late, answered in 50 ms.
	tg.record(&vegeta.Result{Seq: 10, Code: 200, Timestamp: due(10).Add(200 * time.Millisecond), Latency: 50 * time.Millisecond})
	// Request 11: refused.
	tg.record(&vegeta.Result{Seq: 11, Timestamp: due(11), Latency: time.Millisecond, Error: "connection refused"})
	h := l.Held()[0]
	if h.Target != "/x" || h.Latency.Count != 1 || h.Errors != 1 {
		t.Fatalf("held %+v: want request 10 alone answered and one error", h)
	}
	if h.Latency.Max < 249*time.Millisecond || h.Latency.Max > 252*time.Millisecond {
		t.Errorf("held max %v, want 250 ms (from its due time)", h.Latency.Max)
	}
	// EndHold: a request due after it is not held; WaitHeld waits for
	// those sent by it.
	tg.pacer.sent.Store(12)
	// Request 12, taken by a worker before the pacer counted it, is
	// refused at once and filed before EndHold: EndHold counts it sent.
	tg.record(&vegeta.Result{Seq: 12, Timestamp: due(12), Latency: time.Millisecond, Error: "connection refused"})
	l.EndHold()
	tg.record(&vegeta.Result{Seq: 100, Code: 200, Timestamp: time.Now().Add(time.Second), Latency: time.Millisecond})
	if h := l.Held()[0]; h.Latency.Count != 1 || h.Errors != 2 {
		t.Errorf("a request due after EndHold: held %+v, want it left out (10 answered; 11, 12 refused)", h)
	}
	// Of the 13 sent by EndHold, 9..12 have ended; 0..7 end now, 8
	// stalls while 101..120, sent after EndHold, end.
	for seq := range uint64(8) {
		tg.record(&vegeta.Result{Seq: seq, Code: 200, Timestamp: due(seq), Latency: time.Millisecond})
	}
	for seq := uint64(101); seq <= 120; seq++ {
		tg.record(&vegeta.Result{Seq: seq, Code: 200, Timestamp: due(seq), Latency: time.Millisecond})
	}
	if l.WaitHeld(context.Background(), 0, time.Millisecond) {
		t.Error("WaitHeld: true with request 8, sent by EndHold, still in flight (21 sent after it ended)")
	}
	tg.record(&vegeta.Result{Seq: 8, Code: 200, Timestamp: due(8), Latency: 2 * time.Second})
	if !l.WaitHeld(context.Background(), 0, time.Millisecond) {
		t.Error("WaitHeld: false with every request sent by EndHold ended")
	}
	l.Mark()
	if h := l.Held()[0]; h.Latency.Count != 0 || h.Errors != 0 {
		t.Errorf("after a second Mark: %+v, want nothing held", h)
	}
}

// sizedLoad is a load of one target, /x at 10/s, begun 10 s ago (request
// n due within its slot n/10..(n+1)/10 s after), its pool at 1 worker from 1 s after it began and at
// 4 from 2 s after.
func sizedLoad() (*Load, *target) {
	tg := &target{Target: Target{"/x", 10}, interval: 100 * time.Millisecond, pacer: newPacer(100*time.Millisecond, 5*time.Second, targetStep(0), maxLead)}
	l := &Load{spec: Spec{tg.Target}, targets: []*target{tg}}
	tg.l = l
	tg.lat, tg.late, tg.errs = newRec(), newRec(), newRec()
	began := time.Now().Add(-10 * time.Second)
	tg.pacer.base = began
	tg.pacer.off.Store(0)
	l.sizes = []sizeStretch{{began.Add(time.Second), 1}, {began.Add(2 * time.Second), 4}}
	return l, tg
}

// BySize files each answer under the pool size in force when its request
// was due, from its due time; nothing before the first SetSize.
func TestBySizeFilesByDueTime(t *testing.T) {
	l, tg := sizedLoad()
	due := tg.pacer.due
	tg.record(&vegeta.Result{Seq: 5, Code: 200, Timestamp: due(5), Latency: time.Millisecond})          // before any size
	tg.record(&vegeta.Result{Seq: 15, Code: 200, Timestamp: due(15), Latency: 30 * time.Millisecond})   // at 1
	tg.record(&vegeta.Result{Seq: 19, Code: 200, Timestamp: due(19), Latency: 700 * time.Millisecond})  // due at 1, ends at 4
	tg.record(&vegeta.Result{Seq: 25, Code: 200, Timestamp: due(25), Latency: 2 * time.Millisecond})    // at 4
	tg.record(&vegeta.Result{Seq: 26, Timestamp: due(26), Latency: time.Millisecond, Error: "refused"}) // no answer
	by := l.BySize("/x")
	if len(by) != 2 || by[1].Count != 2 || by[4].Count != 1 {
		t.Fatalf("by size %+v: want 2 at 1 worker (by due time), 1 at 4", by)
	}
	if by[1].Max < 690*time.Millisecond || by[4].Max > 3*time.Millisecond {
		t.Errorf("by size %+v: want the 700 ms answer at 1 worker, 2 ms at 4", by)
	}
	if l.BySize("/y") != nil {
		t.Error("a path not in the spec: want nil")
	}
}

// ResetSizes forgets every size's figures; an answer to a request due
// before it is filed nowhere, one due after it under the size in force.
func TestResetSizesForgets(t *testing.T) {
	l, tg := sizedLoad()
	due := tg.pacer.due
	tg.record(&vegeta.Result{Seq: 15, Code: 200, Timestamp: due(15), Latency: time.Millisecond}) // at 1
	tg.record(&vegeta.Result{Seq: 25, Code: 200, Timestamp: due(25), Latency: time.Millisecond}) // at 4
	l.ResetSizes()
	if by := l.BySize("/x"); len(by) != 0 {
		t.Fatalf("right after ResetSizes: %+v, want nothing", by)
	}
	tg.record(&vegeta.Result{Seq: 90, Code: 200, Timestamp: due(90), Latency: 2 * time.Second})    // due before, answered after
	tg.record(&vegeta.Result{Seq: 150, Code: 200, Timestamp: due(150), Latency: time.Millisecond}) // due 5 s on
	if by := l.BySize("/x"); len(by) != 1 || by[4].Count != 1 || by[4].Max > 2*time.Millisecond {
		t.Errorf("after ResetSizes: %+v; want only the request due after it, at 4 workers", by)
	}
}

// A rate read in the load's first moments counts at least one slot: one
// send 1 ms after a 50/s target began reads 50/s, not 1000/s.
func TestRateCoversASlot(t *testing.T) {
	tg := &target{Target: Target{"/x", 50}, interval: 20 * time.Millisecond, pacer: newPacer(20*time.Millisecond, 5*time.Second, targetStep(0), maxLead)}
	l := &Load{spec: Spec{tg.Target}, targets: []*target{tg}}
	tg.lat, tg.late, tg.errs = newRec(), newRec(), newRec()
	now := time.Now()
	tg.pacer.base = now.Add(-time.Millisecond)
	tg.pacer.off.Store(0)
	tg.pacer.sends.RecordAt(hist.Sample{At: now})
	tg.pacer.sent.Store(1)
	if r := float64(l.Figures(nil).Targets[0].RatePerS); r > 50 || r <= 0 {
		t.Errorf("rate %.1f/s one send 1 ms in: want at most the asked 50/s", r)
	}
}
