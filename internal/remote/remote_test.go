package remote

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/pool"
)

func startAgent(t *testing.T, addr string, p *pool.Pool) *agent.Agent {
	t.Helper()
	a, err := agent.Listen(addr, agent.Options{Name: "svc", Pool: p, Control: true,
		Interval: 20 * time.Millisecond, TokenDir: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v", what, limit)
		}
		time.Sleep(5 * time.Millisecond)
	}
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
	a := startAgent(t, "127.0.0.1:0", p)
	addr := a.Addr().String()
	c, err := Dial(addr, Options{})
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
	waitFor(t, "Disconnected", 2*time.Second, func() bool { return !c.Snapshot().Disconnected.IsZero() })
	if s := c.Snapshot(); s.Workers != 0 || s.Submitted != 0 || len(s.Sizes) != 0 {
		t.Fatalf("a disconnected snapshot carries figures: %+v", s)
	}
	startAgent(t, addr, p)
	waitFor(t, "live again", 2*time.Second, func() bool {
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
	if _, err := Dial(addr, Options{}); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("%v, want ErrUnreachable", err)
	}
}

func TestWrongTokenRefused(t *testing.T) {
	p, err := pool.New(pool.Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a := startAgent(t, "127.0.0.1:0", p)
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
	} {
		u, err := BaseURL(in)
		if err != nil || u.String() != want {
			t.Errorf("BaseURL(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	for _, bad := range []string{"", "ftp://x:1", "::::"} {
		if _, err := BaseURL(bad); err == nil {
			t.Errorf("BaseURL(%q) accepted", bad)
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
	waitFor(t, "Disconnected", StaleAfter+2*time.Second, func() bool { return !c.Snapshot().Disconnected.IsZero() })
}
