package remote

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/pool"
)

// TestLaterReadsTheAgentOnceItComes: a member down at start reads as
// disconnected, with the cause, refuses actions, and is read once its
// agent listens; Close then ends its Samples.
func TestLaterReadsTheAgentOnceItComes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	_, first := Dial(addr, Options{TokenDir: dir})
	if !errors.Is(first, ErrUnreachable) {
		t.Fatalf("Dial of a closed port: %v, want ErrUnreachable", first)
	}
	since := time.Now()
	l := DialLater(addr, Options{TokenDir: dir}, first, since, 20*time.Millisecond)
	defer l.Close()
	s := l.Snapshot()
	if s.Remote != addr || !s.Disconnected.Equal(since) || !strings.Contains(s.Notice, "unreachable") || !strings.Contains(s.Notice, "dialled again") {
		t.Fatalf("before the agent: remote %q, disconnected %v, notice %q", s.Remote, s.Disconnected, s.Notice)
	}
	if err := <-l.Post(session.Action{Kind: session.SetWorkers, N: 2}); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Post before the agent: %v, want ErrUnreachable", err)
	}
	p, err := pool.New(pool.Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	startAgent(t, addr, dir, p)
	deadline := time.After(20 * time.Second)
	for live := false; !live; {
		select {
		case snap, ok := <-l.Samples():
			if !ok {
				t.Fatal("Samples closed before the agent was read")
			}
			live = snap.Disconnected.IsZero() && snap.Scenario == "svc"
		case <-deadline:
			t.Fatalf("the agent at %s not read in 20s: %q", addr, l.Snapshot().Notice)
		}
	}
	if err := <-l.Post(session.Action{Kind: session.SetWorkers, N: 2}); err != nil {
		t.Fatalf("Post once read: %v", err)
	}
	l.Close()
	for range l.Samples() {
	}
}

// TestLaterGivesUpOnARefusal: a failure other than unreachable is not
// dialled again: Samples closes, the Notice says so.
func TestLaterGivesUpOnARefusal(t *testing.T) {
	l := DialLater("127.0.0.1:1", Options{}, ErrNotAgent, time.Now(), time.Millisecond)
	defer l.Close()
	select {
	case _, ok := <-l.Samples():
		if ok {
			t.Fatal("a sample from a refused member")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a refused member still dialled after 10s")
	}
	if n := l.Snapshot().Notice; !strings.Contains(n, "not dialled again") {
		t.Errorf("notice %q, want not dialled again", n)
	}
}
