package remote

import (
	"errors"
	"fmt"
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
	l := DialLater(addr, Options{TokenDir: dir}, nil, first, since, 20*time.Millisecond)
	defer l.Close()
	s := l.Snapshot()
	if s.Remote != addr || !s.Disconnected.Equal(since) || !strings.Contains(s.Retry, "unreachable") || s.Notice != "" {
		t.Fatalf("before the agent: remote %q, disconnected %v, retry %q, notice %q: want the address, the first dial, why, no notice", s.Remote, s.Disconnected, s.Retry, s.Notice)
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
			t.Fatalf("the agent at %s not read in 20s: %q", addr, l.Snapshot().Retry)
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
	l := DialLater("127.0.0.1:1", Options{}, nil, ErrNotAgent, time.Now(), time.Millisecond)
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

// TestLaterCloseDuringAStalledDial: Close does not wait for a dial to an
// address that accepts and never answers (5 s of info timeout and more).
func TestLaterCloseDuringAStalledDial(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close() // accepts into its backlog, never answers
	accepted := make(chan struct{}, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			select {
			case accepted <- struct{}{}:
			default:
			}
		}
	}()
	l := DialLater(ln.Addr().String(), Options{}, nil, fmt.Errorf("%w: first", ErrUnreachable), time.Now(), time.Millisecond)
	select {
	case <-accepted: // the retry's dial is in flight
	case <-time.After(10 * time.Second):
		t.Fatal("no retry dialled in 10s")
	}
	closed := make(chan struct{})
	go func() { l.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		t.Fatal("Close waited over 2s for a stalled dial")
	}
}

// TestLaterCheckRefusesForGood: the caller's check runs on the dialled
// Client; a refusal from it ends the retries and is the Notice.
func TestLaterCheckRefusesForGood(t *testing.T) {
	p, err := pool.New(pool.Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dir := t.TempDir()
	a := startAgent(t, "127.0.0.1:0", dir, p)
	checked := 0
	check := func(c *Client) error { checked++; return fmt.Errorf("%w: wrong token", ErrRefused) }
	l := DialLater(a.Addr().String(), Options{TokenDir: dir}, check, fmt.Errorf("%w: first", ErrUnreachable), time.Now(), time.Millisecond)
	defer l.Close()
	select {
	case <-func() chan struct{} {
		done := make(chan struct{})
		go func() {
			for range l.Samples() {
			}
			close(done)
		}()
		return done
	}():
	case <-time.After(10 * time.Second):
		t.Fatal("a member refused by the check still dialled after 10s")
	}
	if s := l.Snapshot(); checked != 1 || !strings.Contains(s.Notice, "wrong token; not dialled again") {
		t.Errorf("checked %d times, notice %q: want once, the refusal, not dialled again", checked, s.Notice)
	}
}
