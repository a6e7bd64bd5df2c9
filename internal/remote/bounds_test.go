package remote

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/internal/peer"
	"github.com/offtop/offtop/internal/session"
)

// reconnectTo closes h and serves a new hostile server claiming claim on
// h's address, once c has seen the stream break; it returns the new one
// after c reads it.
func reconnectTo(t *testing.T, c *Client, h *hostile, claim peer.Process) *hostile {
	t.Helper()
	addr := h.srv.Listener.Addr().String()
	h.srv.CloseClientConnections()
	h.srv.Close()
	testkit.WaitFor(t, "Disconnected", 5*time.Second, func() bool { return !c.Snapshot().Disconnected.IsZero() })
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	h = startHostile(t, ln, claim, "")
	testkit.WaitFor(t, "the new server read", 5*time.Second, func() bool { return c.Snapshot().Disconnected.IsZero() })
	return h
}

// TestReconnectToAGonePidSendsNoToken: the first peer could not be checked
// (it claims a process of the user's that does not hold the listener, as
// when attach cannot read the agent's /proc/PID/fd) and --token is given.
// A server on the address after a reconnect, claiming that process while
// it runs, is sent the token again; claiming it once it is gone, it is
// sent none, and the Notice says the pid is gone.
func TestReconnectToAGonePidSendsNoToken(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peers are checked from /proc")
	}
	child, claim := sleeper(t, exec.Command("sleep", "60"))
	h := startHostile(t, nil, claim, "")
	c, err := Dial(h.srv.URL, Options{Token: "given0token", TokenDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	controlWithin(t, c, "the first peer")
	if said := h.said(); !strings.Contains(said, "Bearer given0token") {
		t.Fatalf("the first peer, token given: sent %q, want it", said)
	}
	h = reconnectTo(t, c, h, claim)
	controlWithin(t, c, "the same pid, running")
	if said := h.said(); !strings.Contains(said, "Bearer given0token") {
		t.Errorf("the same process, running: sent %q, want the token again", said)
	}
	child.Process.Kill()
	child.Wait()
	h = reconnectTo(t, c, h, claim)
	if err := controlWithin(t, c, "the pid gone"); !errors.Is(err, ErrRefused) {
		t.Errorf("control after the pid is gone: %v, want ErrRefused", err)
	}
	if said := h.said(); strings.Contains(said, "Bearer") {
		t.Fatalf("a server claiming pid %d, gone: sent %q", claim.PID, said)
	}
	if n := c.Snapshot().Notice; !strings.Contains(n, "pid "+strconv.Itoa(claim.PID)+" is gone") || !strings.Contains(n, "no token sent") {
		t.Errorf("Notice %q, want: pid %d is gone ...: no token sent", n, claim.PID)
	}
}

// TestTokenFileOfAnotherUsersProcess: a process of user nobody holds the
// listener (it inherited it) and has a 0600 file of this user named as its
// token file; a server on that listener claiming it is sent nothing, and
// control says the process is another uid's. Needs root to start it.
func TestTokenFileOfAnotherUsersProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peers are checked from /proc")
	}
	if os.Getuid() != 0 {
		t.Skip("starting a process of another uid (65534) needs root")
	}
	ln0, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ln0.(*net.TCPListener).File() // the socket, for the child
	ln0.Close()
	if err != nil {
		t.Fatal(err)
	}
	other := exec.Command("sleep", "60")
	other.ExtraFiles = []*os.File{f}
	other.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	_, claim := sleeper(t, other)
	// The socket again, for the server here: made after the child's start,
	// which set the shared socket blocking (os.File.Fd).
	ln, err := net.FileListener(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := peer.HoldsListener(claim, ln.Addr().(*net.TCPAddr)); err != nil {
		t.Fatalf("the process of uid 65534 does not hold the listener: %v", err)
	}
	dir := t.TempDir()
	const secret = "rootonly0secret"
	if err := os.WriteFile(filepath.Join(dir, agent.TokenFileName(claim.PID, claim.Start)), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := startHostile(t, ln, claim, "")
	c, err := Dial(h.srv.URL, Options{TokenDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := controlWithin(t, c, "another uid's process"); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "uid 65534") {
		t.Errorf("control: %v, want ErrRefused naming uid 65534", err)
	}
	if said := h.said(); strings.Contains(said, secret) || strings.Contains(said, "Bearer") {
		t.Fatalf("the process of uid 65534 was sent %q", said)
	}
}

// trickle answers code and then one byte every 10 ms, never a whole answer,
// until the client goes.
func trickle(w http.ResponseWriter, r *http.Request, code int, b byte) {
	w.WriteHeader(code)
	for {
		if _, err := w.Write([]byte{b}); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// dialWithin dials addr and fails the test when Dial has not returned
// within 10 s (attach hung).
func dialWithin(t *testing.T, addr string) error {
	t.Helper()
	dir := t.TempDir()
	return within(t, "Dial "+addr, func() error {
		c, err := Dial(addr, Options{TokenDir: dir})
		if c != nil {
			c.Close()
		}
		return err
	})
}

// TestTricklingAgentIsBounded: an agent that answers its info with 200 and
// trickles the body, or answers the info (saying a sample interval of
// 11 days) and trickles a stream line, or trickles a control answer, is
// given up within the bounds (shortened here): Dial and CheckControl
// return an error, the refusal's ESCs written out.
func TestTricklingAgentIsBounded(t *testing.T) {
	defer func(i, s, c time.Duration) { infoTimeout, maxStale, controlTimeout = i, s, c }(infoTimeout, maxStale, controlTimeout)
	infoTimeout, maxStale, controlTimeout = 200*time.Millisecond, 300*time.Millisecond, 200*time.Millisecond
	info := `{"agent":"offtop","schema":` + strconv.Itoa(session.SchemaVersion) + `,"pid":1,"start_ticks":1,"interval_ms":1000000000,"control":true}`
	var infoTrickles, streamTrickles atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimPrefix(r.URL.Path, agent.DefaultPath) {
		case "":
			if infoTrickles.Load() {
				trickle(w, r, http.StatusOK, ' ')
				return
			}
			w.Write([]byte(info))
		case "stream":
			if streamTrickles.Load() {
				trickle(w, r, http.StatusOK, '{')
				return
			}
			w.Write([]byte("{\"schema\":" + strconv.Itoa(session.SchemaVersion) + "}\n"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			trickle(w, r, http.StatusForbidden, 0x1b)
		}
	}))
	defer srv.Close()
	infoTrickles.Store(true)
	if err := dialWithin(t, srv.URL); !errors.Is(err, ErrNotAgent) {
		t.Errorf("info trickled: %v, want ErrNotAgent", err)
	}
	infoTrickles.Store(false)
	streamTrickles.Store(true)
	if err := dialWithin(t, srv.URL); !errors.Is(err, ErrNotAgent) {
		t.Errorf("stream line trickled: %v, want ErrNotAgent", err)
	}
	streamTrickles.Store(false)
	c, err := Dial(srv.URL, Options{Token: "t0k", TokenDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := controlWithin(t, c, "a control answer trickled"); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), `\x1b`) || strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("a control answer of ESCs trickled: %q, want ErrRefused, each ESC written out", err)
	}
}

// TestSilentControlAnswerMayStillApply: an agent that takes an action's
// request and does not answer within controlTimeout (a process stopped
// with SIGSTOP, that reads it when it runs again) is refused saying so:
// no answer in time, and that it may still apply, not a bare deadline.
func TestSilentControlAnswerMayStillApply(t *testing.T) {
	defer func(c time.Duration) { controlTimeout = c }(controlTimeout)
	controlTimeout = 200 * time.Millisecond
	info := `{"agent":"offtop","schema":` + strconv.Itoa(session.SchemaVersion) + `,"pid":1,"start_ticks":1,"interval_ms":1000,"control":true}`
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimPrefix(r.URL.Path, agent.DefaultPath) {
		case "":
			w.Write([]byte(info))
		case "stream":
			w.Write([]byte("{\"schema\":" + strconv.Itoa(session.SchemaVersion) + "}\n"))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			b, _ := io.ReadAll(r.Body)
			got <- string(b)
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	c, err := Dial(srv.URL, Options{Token: "t0k", TokenDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = <-c.Post(session.Action{Kind: session.SetWorkers, N: 3})
	if body := <-got; body == "" {
		t.Fatal("the agent got no action")
	}
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "no answer within 200ms; the agent may still apply it") {
		t.Fatalf("%v, want ErrUnreachable saying no answer within 200ms and that it may still apply", err)
	}
}
