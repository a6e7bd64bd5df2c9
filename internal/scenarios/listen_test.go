package scenarios_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"go.uber.org/goleak"
)

// outsideLoad is a small closed-loop load generator of our own, as
// autocannon is: conns connections, each sending the next GET to url when
// the previous one has answered. It records every response's latency.
type outsideLoad struct {
	mu   sync.Mutex
	lat  []time.Duration
	errs int
	body map[string]int // bodies seen, for checking answers
}

func (o *outsideLoad) run(ctx context.Context, wg *sync.WaitGroup, client *http.Client, url string, conns int) {
	for range conns {
		wg.Go(func() {
			for ctx.Err() == nil {
				o.get(ctx, client, url, time.Now())
			}
		})
	}
}

// get sends one GET to url and records its latency from from and its
// body, or counts an error unless ctx is done.
func (o *outsideLoad) get(ctx context.Context, client *http.Client, url string, from time.Time) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			o.mu.Lock()
			o.errs++
			o.mu.Unlock()
		}
		return
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(from)
	o.mu.Lock()
	o.lat = append(o.lat, d)
	o.body[string(b)]++
	o.mu.Unlock()
}

// every sends a GET to url every period, open-loop: each in its own
// goroutine, due at start + i*period whether or not the last has answered,
// and times each from when it was due, so a late sender hides no delay
// (coordinated omission, G. Tene; wrk2's and oha -q's way).
//
// It sends until send is done; each ping in flight then still waits for its
// reply until ctx is done, so the slowest replies are not the ones lost.
func (o *outsideLoad) every(ctx, send context.Context, wg *sync.WaitGroup, client *http.Client, url string, period time.Duration) {
	wg.Go(func() {
		start := time.Now()
		for i := 0; ; i++ {
			due := start.Add(time.Duration(i) * period)
			select {
			case <-send.Done():
				return
			case <-time.After(time.Until(due)):
			}
			wg.Go(func() { o.get(ctx, client, url, due) })
		}
	})
}

// p99 of the latencies recorded, nearest rank.
func (o *outsideLoad) p99() (time.Duration, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.lat) == 0 {
		return 0, 0
	}
	s := slices.Clone(o.lat)
	slices.Sort(s)
	return s[(len(s)*99+99)/100-1], len(s)
}

// listenSession starts server with its own load off on a free loopback
// port given as --listen would, and returns the session and the address
// it reports.
func listenSession(t *testing.T, workers int) (*session.Session, string) {
	t.Helper()
	s, err := session.New(session.Config{Scenario: "server", Workers: workers, NoLoad: true,
		Interval: 50 * time.Millisecond, Window: 30 * time.Second, // longer than any test here
		Scenarios: scenarios.Config{Listen: "127.0.0.1:0"}})
	if err != nil {
		t.Fatal(err)
	}
	snap := <-s.Samples()
	r, ok := readout(snap, "listen_addr")
	if !ok || r.Text == "" {
		s.Close()
		t.Fatalf("no listen_addr readout: %+v", r)
	}
	return s, r.Text
}

// TestServerNoLoadAnswersAnOutsideClient: with --no-load the scenario
// sends nothing of its own (the run starts paused), an outside client gets
// right answers on /ping, /fast and /slow at the address the JSON names,
// and the pool counts its requests and adds up.
func TestServerNoLoadAnswersAnOutsideClient(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, addr := listenSession(t, 1)
	defer s.Close()
	if !s.Snapshot().Paused {
		t.Error("--no-load: the run is not paused")
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for route, want := range map[string]string{"/ping": "ok", "/fast": "832040", "/slow": "24157817"} {
		resp, err := client.Get("http://" + addr + route)
		if err != nil {
			t.Fatalf("GET %s: %v", route, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != want {
			t.Errorf("GET %s = %q, want %q", route, b, want)
		}
	}
	// Samples queue up: read until one shows the requests. The pool counts
	// a task done before its handler records the request served, so a
	// sample can show both tasks completed and the last request not yet
	// served; the GETs above have returned, so a later sample shows it.
	served := func(snap session.Snapshot) (missing []string) {
		for _, k := range []string{"served_ping_rps", "served_fast_rps", "served_slow_rps"} {
			if r, _ := readout(snap, k); r.Value <= 0 {
				missing = append(missing, fmt.Sprintf("%s = %v", k, r.Value))
			}
		}
		return missing
	}
	var snap session.Snapshot
	deadline := time.After(10 * time.Second)
	for snap.Completed < 2 || len(served(snap)) > 0 {
		select {
		case snap = <-s.Samples():
			if !snap.Balanced() {
				t.Fatalf("counts do not add up: %+v", snap)
			}
		case <-deadline:
			t.Fatalf("no sample shows the outside requests in 10 s: pool completed %d (want 2: /fast and /slow), %v", snap.Completed, served(snap))
		}
	}
	if snap.Submitted != 2 {
		t.Errorf("pool: submitted %d, want 2", snap.Submitted)
	}
	for _, k := range []string{"fast_rps", "slow_rps"} {
		if r, _ := readout(snap, k); r.Value != 0 {
			t.Errorf("%s = %v: the scenario's own clients ran under --no-load", k, r.Value)
		}
	}
}

// TestIOListensWhereTold: io takes --listen too, names the address in
// its readouts, and its endpoint answers an outside client there.
func TestIOListensWhereTold(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := session.New(session.Config{Scenario: "io", Workers: 1, NoLoad: true,
		Interval: 50 * time.Millisecond, Window: time.Second,
		Scenarios: scenarios.Config{Listen: "127.0.0.1:0"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, _ := readout(<-s.Samples(), "listen_addr")
	if !r.Str || r.Text == "" || r.Text == "127.0.0.1:0" {
		t.Fatalf("listen_addr = %+v", r)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://" + r.Text + "/call?n=7")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(b) != "7" {
		t.Errorf("GET /call: %s %q", resp.Status, b)
	}
}

// TestServedRateIsTheClientsRate: an outside client sending /ping at a
// steady 100 per second of the session's clock (a fake one, moved 10 ms
// after each answer) reads within 2% of served_ping_rps at every sample
// once the window is full, whatever the phase of the window's slots: the
// rate divides the requests by the time the window holds, not by its
// nominal span.
func TestServedRateIsTheClientsRate(t *testing.T) {
	defer goleak.VerifyNone(t)
	clk := clock.NewFake(time.Now())
	const window, interval, every = 5 * time.Second, 50 * time.Millisecond, 10 * time.Millisecond
	s, err := session.New(session.Config{Scenario: "server", Workers: 1, NoLoad: true,
		Interval: interval, Window: window, Clock: clk,
		Scenarios: scenarios.Config{Listen: "127.0.0.1:0"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	clk.Advance(interval)
	first := <-s.Samples()
	r, _ := readout(first, "listen_addr")
	addr := r.Text
	checked := 0
	for i := 1; time.Duration(i)*every < window+1500*time.Millisecond; i++ {
		resp, err := client.Get("http://" + addr + "/ping")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		clk.Advance(every)
		if i%int(interval/every) != 0 {
			continue
		}
		select { // the sample due now
		case snap := <-s.Samples():
			if time.Duration(snap.Elapsed) > window+interval {
				r, _ := readout(snap, "served_ping_rps")
				if math.Abs(r.Value/100-1) > 0.02 {
					t.Errorf("t=%.2fs: served_ping_rps %.2f, the client sends 100/s", time.Duration(snap.Elapsed).Seconds(), r.Value)
				}
				checked++
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no sample")
		}
	}
	if checked < 20 {
		t.Errorf("%d samples checked, want >= 20", checked)
	}
}

// TestNoLoadRowsCountTheOutsideLoad: with --no-load the outside load is
// the load: the size in force is held, and its row has the latency the
// server measured for every request an outside client sent, per endpoint,
// as the readouts do over the window.
func TestNoLoadRowsCountTheOutsideLoad(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, addr := listenSession(t, 1)
	defer s.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	sent := map[string]int64{"ping": 20, "fast": 3}
	for ep, n := range sent {
		for range n {
			resp, err := client.Get("http://" + addr + "/" + ep)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	deadline := time.After(10 * time.Second)
	for {
		var snap session.Snapshot
		select {
		case snap = <-s.Samples():
		case <-deadline:
			t.Fatalf("the row never counted the requests sent: %+v", s.Snapshot().Sizes)
		}
		var row session.SizeRow
		for _, r := range snap.Sizes {
			if r.Current {
				row = r
			}
		}
		if row.Served["ping"].Count < sent["ping"] || row.Served["fast"].Count < sent["fast"] {
			continue
		}
		if row.Served["ping"].Count != sent["ping"] || row.Served["fast"].Count != sent["fast"] || row.Served["slow"].Count != 0 {
			t.Errorf("row served %+v, sent %v", row.Served, sent)
		}
		if row.Held <= 0 || row.Served["fast"].P99 <= 0 {
			t.Errorf("row held %v, /fast p99 %v", row.Held, row.Served["fast"].P99)
		}
		for _, k := range []string{"served_ping_p99_ms", "served_fast_p99_ms"} {
			if r, _ := readout(snap, k); !r.Known || r.Value <= 0 {
				t.Errorf("%s = %+v", k, r)
			}
		}
		return
	}
}
