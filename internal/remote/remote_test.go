package remote

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/pool"
)

// startAgent starts an agent with control on addr, its token file in dir.
func startAgent(t *testing.T, addr, dir string, p *pool.Pool) *agent.Agent {
	t.Helper()
	a, err := agent.Listen(addr, agent.Options{Name: "svc", Pool: p, Control: true,
		Interval: 20 * time.Millisecond, TokenDir: dir, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

// TestClientResizesFindsTokenAndReconnects: the client finds the token
// file, resizes the remote pool, says Disconnected (with no figures) when
// the agent goes, and reads the new agent on the same address (a new
// token) when it comes back.
func TestClientResizesFindsTokenAndReconnects(t *testing.T) {
	p, err := pool.New(pool.Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dir := t.TempDir()
	a := startAgent(t, "127.0.0.1:0", dir, p)
	addr := a.Addr().String()
	c, err := Dial(addr, Options{TokenDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if s := c.Snapshot(); s.Scenario != "svc" || s.Remote != addr || !s.Disconnected.IsZero() {
		t.Fatalf("first snapshot: %q %q %v", s.Scenario, s.Remote, s.Disconnected)
	}
	if err := session.Apply(c, session.Action{Kind: session.SetWorkers, N: 3}); err != nil {
		t.Fatal(err)
	}
	if n := p.Size(); n != 3 {
		t.Fatalf("remote pool has %d workers, want 3", n)
	}
	if err := session.Apply(c, session.Action{Kind: session.Load, N: 1}); !errors.Is(err, session.ErrAction) {
		t.Fatalf("load: %v, want ErrAction", err)
	}
	a.Close()
	testkit.WaitFor(t, "Disconnected", 2*time.Second, func() bool { return !c.Snapshot().Disconnected.IsZero() })
	if s := c.Snapshot(); s.Workers != 0 || s.Submitted != 0 || len(s.Sizes) != 0 {
		t.Fatalf("a disconnected snapshot carries figures: %+v", s)
	}
	startAgent(t, addr, dir, p)
	testkit.WaitFor(t, "live again", 2*time.Second, func() bool {
		s := c.Snapshot()
		return s.Disconnected.IsZero() && s.Workers == 3
	})
	if err := session.Apply(c, session.Action{Kind: session.SetWorkers, N: 2}); err != nil {
		t.Fatalf("resize after the reconnect (a new token): %v", err)
	}
}

func TestDialUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if _, err := Dial(addr, Options{}); !errors.Is(err, ErrUnreachable) || err.Error() != "unreachable: nothing listens on "+addr {
		t.Fatalf("%v, want ErrUnreachable: nothing listens on %s", err, addr)
	}
	// A URL without its port: the port dialled is named.
	for in, want := range map[string]string{"http://127.0.0.1/x": "127.0.0.1:80", "https://[::1]": "[::1]:443"} {
		base, err := BaseURL(in)
		if err != nil {
			t.Fatal(err)
		}
		c := &Client{base: base}
		if got := c.unreachable(syscall.ECONNREFUSED).Error(); got != "unreachable: nothing listens on "+want {
			t.Errorf("%s: %q, want nothing listens on %s", in, got, want)
		}
	}
	c := &Client{base: &url.URL{Scheme: "http", Host: "nohost.invalid:7070"}}
	if got := c.unreachable(&net.DNSError{Err: "no such host", Name: "nohost.invalid", IsNotFound: true}).Error(); got != "unreachable: host not found: nohost.invalid" {
		t.Errorf("DNS: %q", got)
	}
}

func TestWrongTokenRefused(t *testing.T) {
	p, err := pool.New(pool.Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a := startAgent(t, "127.0.0.1:0", t.TempDir(), p)
	c, err := Dial(a.Addr().String(), Options{Token: "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CheckControl(); !errors.Is(err, ErrRefused) {
		t.Fatalf("CheckControl: %v, want ErrRefused", err)
	}
	if err := session.Apply(c, session.Action{Kind: session.SetWorkers, N: 4}); !errors.Is(err, ErrRefused) {
		t.Fatalf("resize: %v, want ErrRefused", err)
	}
	if n := p.Size(); n != 1 {
		t.Fatalf("pool has %d workers after a refused resize", n)
	}
}

func TestBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:7070":                           "http://127.0.0.1:7070/debug/offtop/",
		"http://127.0.0.1:7070":                    "http://127.0.0.1:7070/debug/offtop/",
		"http://127.0.0.1:7070/debug/offtop":       "http://127.0.0.1:7070/debug/offtop/",
		"http://localhost:9/x/debug/offtop/?a=1#f": "http://localhost:9/x/debug/offtop/",
		"http://127.0.0.1":                         "http://127.0.0.1/debug/offtop/",
		"[::1]:65535":                              "http://[::1]:65535/debug/offtop/",
	} {
		u, err := BaseURL(in)
		if err != nil || u.String() != want {
			t.Errorf("BaseURL(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	for bad, why := range map[string]string{
		"":                        "ADDR: no host",
		"ftp://x:1":               "ADDR: not an http URL",
		"::::":                    "ADDR: not host:port or an http URL",
		"127.0.0.1":               "ADDR: no port (",
		"127.0.0.1:":              "ADDR: no port after the colon (",
		"127.0.0.1:99999":         "ADDR: port out of range 1..65535",
		"127.0.0.1:0":             "ADDR: port out of range 1..65535",
		"http://u@127.0.0.1:1e3/": "ADDR: port not a number",
		"[::1]:7070x":             "ADDR: port not a number",
		"http://":                 "ADDR: no host",
	} {
		_, err := BaseURL(bad)
		if !errors.Is(err, ErrAddress) || !strings.HasPrefix(err.Error(), why) {
			t.Errorf("BaseURL(%q): %v, want %q...", bad, err, why)
		}
	}
}

// TestSilentStreamIsDisconnected: a program that stops answering without
// closing the connection (SIGSTOP, a host gone) is shown disconnected,
// not frozen figures as if live.
func TestSilentStreamIsDisconnected(t *testing.T) {
	line, err := json.Marshal(session.Snapshot{Run: session.Run{Scenario: "frozen"}, Pool: session.Pool{Workers: 3}})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case agent.DefaultPath:
			json.NewEncoder(w).Encode(agent.Info{Agent: "offtop", Schema: session.SchemaVersion, IntervalMS: 100})
		case agent.DefaultPath + "stream":
			w.Write(append(line, '\n'))
			w.(http.Flusher).Flush()
			select { // then silence
			case <-release:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	c, err := Dial(srv.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if s := c.Snapshot(); s.Workers != 3 {
		t.Fatalf("first line: %d workers", s.Workers)
	}
	testkit.WaitFor(t, "Disconnected", StaleAfter+2*time.Second, func() bool { return !c.Snapshot().Disconnected.IsZero() })
}

// TestRestartedProgramKeepsItsRowsApart: two agents in turn on one address
// (the second one's t_s starts again, as a restarted program's does): the
// client names the second as another program, its rows are its own, and
// the first one's rows are kept in Earlier, not dropped.
func TestRestartedProgramKeepsItsRowsApart(t *testing.T) {
	// watch starts an agent without control on addr, reading a pool of
	// size n that the test resizes itself, as the program would.
	watch := func(addr string, n int) (*agent.Agent, *pool.Pool) {
		p, err := pool.New(pool.Options{Size: n})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		a, err := agent.Listen(addr, agent.Options{Name: "svc", Pool: p, Interval: 20 * time.Millisecond, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Close)
		return a, p
	}
	hasRow := func(rows session.SizeRows, w int) bool {
		for _, r := range rows {
			if r.Workers == w {
				return true
			}
		}
		return false
	}
	a, p := watch("127.0.0.1:0", 1)
	addr := a.Addr().String()
	c, err := Dial(addr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := p.Resize(3); err != nil {
		t.Fatal(err)
	}
	// The first program runs long enough that the second's first t_s is
	// below its last.
	testkit.WaitFor(t, "the first program's row of 3", 10*time.Second, func() bool {
		s := c.Snapshot()
		return hasRow(s.Sizes, 3) && time.Duration(s.Elapsed) > 2500*time.Millisecond
	})
	first := c.Snapshot()
	if first.PID != os.Getpid() || first.Since.IsZero() || len(first.Earlier) != 0 {
		t.Fatalf("first program: pid %d since %v, %d earlier", first.PID, first.Since, len(first.Earlier))
	}
	a.Close()
	testkit.WaitFor(t, "Disconnected", 5*time.Second, func() bool { return !c.Snapshot().Disconnected.IsZero() })
	watch(addr, 2)
	testkit.WaitFor(t, "the second program", 5*time.Second, func() bool {
		s := c.Snapshot()
		return s.Disconnected.IsZero() && s.Workers == 2
	})
	s := c.Snapshot()
	if len(s.Earlier) != 1 || !hasRow(s.Earlier[0].Sizes, 3) || s.Earlier[0].PID != first.PID || s.Earlier[0].Since != first.Since {
		t.Fatalf("the first program's rows not kept apart: %+v", s.Earlier)
	}
	if hasRow(s.Sizes, 3) || !hasRow(s.Sizes, 2) {
		t.Errorf("the second program's rows %+v: want its own (2), not the first's (3)", s.Sizes)
	}
	if !s.Since.After(first.Since) {
		t.Errorf("second program since %v, not after the first's %v", s.Since, first.Since)
	}
}

// TestOlderLineInAStreamIsTheSameProgram: within one stream a line may be
// older than the first (the agent sends its newest sample at once, then
// those queued): that is no restart, and no rows are moved apart.
func TestOlderLineInAStreamIsTheSameProgram(t *testing.T) {
	var lines []byte
	for _, at := range []time.Duration{5 * time.Second, 4750 * time.Millisecond, 5250 * time.Millisecond} {
		b, err := json.Marshal(session.Snapshot{Schema: session.SchemaVersion, Elapsed: session.Seconds(at), Run: session.Run{Scenario: "svc"},
			Sizes: session.SizeRows{{Scenario: "svc", Workers: 2, Held: at, Current: true}}})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, b...), '\n')
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case agent.DefaultPath:
			json.NewEncoder(w).Encode(agent.Info{Agent: "offtop", Schema: session.SchemaVersion, PID: 77, IntervalMS: 250})
		case agent.DefaultPath + "stream":
			w.Write(lines)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	c, err := Dial(srv.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	testkit.WaitFor(t, "the third line", 5*time.Second, func() bool { return c.Snapshot().Elapsed == session.Seconds(5250*time.Millisecond) })
	if s := c.Snapshot(); len(s.Earlier) != 0 || s.PID != 77 {
		t.Fatalf("one stream read as %d earlier programs, pid %d", len(s.Earlier), s.PID)
	}
}
