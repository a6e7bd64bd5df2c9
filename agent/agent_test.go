package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/pool"
)

func newPool(t *testing.T, size int) *pool.Pool {
	t.Helper()
	p, err := pool.New(pool.Options{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func listen(t *testing.T, o Options) (*Agent, string) {
	t.Helper()
	if o.TokenDir == "" {
		o.TokenDir = t.TempDir()
	}
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	a, err := Listen("127.0.0.1:0", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a, "http://" + a.Addr().String() + DefaultPath
}

func post(t *testing.T, url, token, body string) int {
	t.Helper()
	code, _ := postBody(t, url, token, body)
	return code
}

// postBody posts one action and returns the status and the answer's body.
func postBody(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"action", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(b)
}

// TestActionNeedsToken: without the token, or with a wrong one, a resize
// gets 401 and the pool keeps its size; with it, 200 and the size moves.
// The token file is the user's only (0600) and goes with the agent.
func TestActionNeedsToken(t *testing.T) {
	p := newPool(t, 2)
	a, url := listen(t, Options{Pool: p, Control: true})
	resize := `{"kind":"set_workers","n":4}`
	for _, tok := range []string{"", "wrong", strings.Repeat("0", 64)} {
		if code := post(t, url, tok, resize); code != http.StatusUnauthorized {
			t.Fatalf("token %q: %d, want 401", tok, code)
		}
	}
	if n := p.Size(); n != 2 {
		t.Fatalf("a refused resize changed the pool to %d", n)
	}
	path := a.TokenFile()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if code := post(t, url, strings.TrimSpace(string(b)), resize); code != http.StatusOK {
		t.Fatalf("with the token: %d, want 200", code)
	}
	if n := p.Size(); n != 4 {
		t.Fatalf("pool has %d workers after the resize, want 4", n)
	}
	if code := post(t, url, strings.TrimSpace(string(b)), `{"kind":"set_workers","n":999}`); code != http.StatusUnprocessableEntity {
		t.Fatalf("size 999: %d, want 422", code)
	}
	if code := post(t, url, strings.TrimSpace(string(b)), `{"kind":"next_scenario"}`); code != http.StatusUnprocessableEntity {
		t.Fatalf("tab: %d, want 422", code)
	}
	if code := post(t, url, strings.TrimSpace(string(b)), `{"kind":"set_workers"}`); code != http.StatusBadRequest || p.Size() != 4 {
		t.Fatalf("set_workers without n: %d and %d workers, want 400 and the pool left at 4", code, p.Size())
	}
	if code := post(t, url, strings.TrimSpace(string(b)), strings.Repeat(" ", MaxBodyBytes+1)); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("a body over %d bytes: %d, want 413", MaxBodyBytes, code)
	}
	a.Close()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("token file left after Close: %v", err)
	}
}

func TestNoControlIs403(t *testing.T) {
	p := newPool(t, 2)
	a, url := listen(t, Options{Pool: p})
	if a.TokenFile() != "" {
		t.Fatal("a token file without Control")
	}
	if code := post(t, url, "x", `{"kind":"set_workers","n":4}`); code != http.StatusForbidden {
		t.Fatalf("%d, want 403", code)
	}
	for _, none := range []pool.Accounted{nil, (*pool.Pool)(nil), (*pool.Meter)(nil)} {
		if _, err := New(Options{Control: true, Pool: none}); !errors.Is(err, ErrNoPool) {
			t.Fatalf("Control with pool %#v: %v, want ErrNoPool", none, err)
		}
	}
}

func TestListenRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "10.1.2.3:7070", "[::]:0", "example.com:80"} {
		if _, err := Listen(addr, Options{}); !errors.Is(err, ErrNotLoopback) {
			t.Errorf("Listen(%q): %v, want ErrNotLoopback", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:7070", "127.9.9.9:1", "localhost:7070", "[::1]:7070"} {
		if err := CheckLoopback(addr); err != nil {
			t.Errorf("CheckLoopback(%q): %v", addr, err)
		}
	}
}

// TestHandlerRefusesNonLoopbackRequest: mounted on a mux served on every
// interface, the agent still answers only loopback, unless AllowRemote.
func TestHandlerRefusesNonLoopbackRequest(t *testing.T) {
	for _, allow := range []bool{false, true} {
		a, err := New(Options{AllowRemote: allow, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		r := httptest.NewRequest(http.MethodGet, DefaultPath, nil)
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey,
			&net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 7070}))
		w := httptest.NewRecorder()
		a.Handler().ServeHTTP(w, r)
		a.Close()
		want := http.StatusForbidden
		if allow {
			want = http.StatusOK
		}
		if w.Code != want {
			t.Errorf("AllowRemote %v: %d, want %d", allow, w.Code, want)
		}
	}
}

// TestStreamLines: the stream is JSON Lines, each with the --headless
// fields and the schema.
func TestStreamLines(t *testing.T) {
	_, url := listen(t, Options{Name: "svc", Pool: newPool(t, 1), Interval: 20 * time.Millisecond})
	resp, err := http.Get(url + "stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Fatalf("Content-Type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for i := 0; i < 3 && sc.Scan(); i++ {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range append(session.RequiredJSONFields, "schema") {
			if _, ok := m[k]; !ok {
				t.Fatalf("line %d has no %q", i, k)
			}
		}
		if m["scenario"] != "svc" || m["schema"] != float64(SchemaVersion) {
			t.Fatalf("line %d: scenario %v schema %v", i, m["scenario"], m["schema"])
		}
	}
}

func TestHubDropsAFullClient(t *testing.T) {
	h := newHub(func() session.Snapshot { return session.Snapshot{} })
	c, _, ok := h.join()
	if !ok {
		t.Fatal("join refused")
	}
	samples := make(chan session.Snapshot, ClientBuffer+2)
	for range ClientBuffer + 1 {
		samples <- session.Snapshot{}
	}
	close(samples)
	h.run(samples)
	select {
	case <-c.dropped:
	default:
		t.Fatal("a client ClientBuffer+1 lines behind was kept")
	}
	if len(c.lines) != ClientBuffer {
		t.Fatalf("%d lines buffered, want %d", len(c.lines), ClientBuffer)
	}
}

// TestSlowClientDoesNotSlowOthers: a client that asks for the stream and
// never reads is dropped, and meanwhile another client gets every sample
// the agent took. The rate is a ratio to the agent's own samples (t_s and
// samples_missed of the lines), so a busy machine that makes the sampler
// late does not fail it.
func TestSlowClientDoesNotSlowOthers(t *testing.T) {
	const interval = 20 * time.Millisecond
	a, url := listen(t, Options{Pool: newPool(t, 1), Interval: interval})
	// A receive buffer set before connecting keeps the window small, so
	// the server's writes to it block within a few samples.
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1024) })
	}}
	slow, err := d.Dial("tcp", a.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "GET %sstream HTTP/1.1\r\nHost: x\r\n\r\n", DefaultPath)

	resp, err := http.Get(url + "stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	type point struct {
		T      float64 `json:"t_s"`
		Missed int64   `json:"samples_missed"`
	}
	var first, last point
	n := 0
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) && sc.Scan() {
		var p point
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if n == 1 { // line 0 is the newest sample, sent at once
			first = p
		}
		last = p
		n++
	}
	taken := float64(last.T-first.T)/interval.Seconds() - float64(last.Missed-first.Missed) + 1
	got := float64(n - 1)
	t.Logf("read %v samples of the %.0f taken (ratio %.2f)", got, taken, got/taken)
	if taken < 10 || got/taken < 0.9 {
		t.Fatalf("read %v of the %.0f samples the agent took beside a client that never reads", got, taken)
	}
	a.hub.mu.Lock()
	clients := len(a.hub.clients)
	a.hub.mu.Unlock()
	if clients != 1 {
		t.Fatalf("%d stream clients after 2s, want 1: the one that never reads was not dropped", clients)
	}
}

// TestMeterThroughTheAgent: a pool of the program's own, metered, is
// resized by an action through MeterOptions.Resize.
func TestMeterThroughTheAgent(t *testing.T) {
	size := 2
	var mu sync.Mutex
	m := pool.NewMeter(pool.MeterOptions{
		Size:   func() int { mu.Lock(); defer mu.Unlock(); return size },
		Resize: func(n int) error { mu.Lock(); defer mu.Unlock(); size = n; return nil },
	})
	a, url := listen(t, Options{Pool: m, Control: true, Interval: 20 * time.Millisecond})
	b, err := os.ReadFile(a.TokenFile())
	if err != nil {
		t.Fatal(err)
	}
	if code := post(t, url, strings.TrimSpace(string(b)), `{"kind":"set_workers","n":5}`); code != http.StatusOK {
		t.Fatalf("resize: %d", code)
	}
	if s := m.Stats(); s.Size != 5 || len(s.Workers) != 5 {
		t.Fatalf("meter size %d, %d places after the resize, want 5", s.Size, len(s.Workers))
	}
	m.Wrap(func() {})()
	testkit.WaitFor(t, "the metered task in the agent's snapshot", 0, func() bool { return a.s.Snapshot().Completed == 1 })
	if w := a.s.Snapshot().Workers; w != 5 {
		t.Fatalf("snapshot says %d workers, want 5", w)
	}
}

// TestSizeZeroWithoutInlineIs422: a pool with no inline path refuses size
// 0 with the reason (422), keeps its size, and a task submitted after runs;
// a pool with one takes size 0 and runs the task inline.
func TestSizeZeroWithoutInlineIs422(t *testing.T) {
	p := newPool(t, 2)
	a, url := listen(t, Options{Pool: p, Control: true})
	tok := tokenOf(t, a)
	code, body := postBody(t, url, tok, `{"kind":"set_workers","n":0}`)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "size 0 refused") || !strings.Contains(body, "Inline") {
		t.Fatalf("size 0 with no inline: %d %q, want 422 with the reason", code, body)
	}
	if n := p.Size(); n != 2 {
		t.Fatalf("a refused size 0 left the pool at %d", n)
	}
	if code := post(t, url, tok, `{"kind":"set_workers","n":1}`); code != http.StatusOK {
		t.Fatalf("size 1: %d", code)
	}
	if code, body := postBody(t, url, tok, `{"kind":"add_workers","n":-1}`); code != http.StatusUnprocessableEntity || !strings.Contains(body, "size 0 refused") {
		t.Fatalf("- at 1 with no inline: %d %q, want 422", code, body)
	}
	if err := p.Do(func() {}); err != nil { // runs: nothing waits in the queue
		t.Fatal(err)
	}
	if s := p.Stats(); s.Size != 1 || s.Queued != 0 {
		t.Fatalf("size %d, %d queued after the refusals, want 1 and 0", s.Size, s.Queued)
	}

	inline := make(chan func(), 1)
	q, err := pool.New(pool.Options{Size: 2, Inline: func(fn func()) { inline <- fn }})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	b, urlB := listen(t, Options{Pool: q, Control: true})
	if code := post(t, urlB, tokenOf(t, b), `{"kind":"set_workers","n":0}`); code != http.StatusOK || q.Size() != 0 {
		t.Fatalf("size 0 with inline: %d, size %d, want 200 and 0", code, q.Size())
	}
	done := make(chan error, 1)
	go func() { done <- q.Do(func() {}) }()
	(<-inline)()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// tokenOf is a's control token.
func tokenOf(t *testing.T, a *Agent) string {
	t.Helper()
	if a.token == "" {
		t.Fatal("no token: the agent has no control")
	}
	return a.token
}

// TestActionsSaturateOverHTTP: add_workers and add_gomaxprocs with n at
// the ends of int64 end at the ends of their ranges, not wrapped.
func TestActionsSaturateOverHTTP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	p, err := pool.New(pool.Options{Size: 2, Inline: func(fn func()) { go fn() }}) // size 0 allowed
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	a, url := listen(t, Options{Pool: p, Control: true})
	b, err := os.ReadFile(a.TokenFile())
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSpace(string(b))
	for _, c := range []struct {
		body     string
		size, mp int
	}{
		{`{"kind":"add_workers","n":9223372036854775807}`, session.MaxWorkers, 0},
		{`{"kind":"add_workers","n":-9223372036854775808}`, 0, 0},
		{`{"kind":"add_gomaxprocs","n":9223372036854775807}`, -1, runtime.NumCPU()},
		{`{"kind":"add_gomaxprocs","n":-9223372036854775808}`, -1, 1},
	} {
		if code := post(t, url, tok, c.body); code != http.StatusOK {
			t.Fatalf("%s: %d", c.body, code)
		}
		if c.size >= 0 && p.Size() != c.size {
			t.Errorf("%s: pool size %d, want %d", c.body, p.Size(), c.size)
		}
		if c.mp > 0 && runtime.GOMAXPROCS(0) != c.mp {
			t.Errorf("%s: GOMAXPROCS %d, want %d", c.body, runtime.GOMAXPROCS(0), c.mp)
		}
	}
}
