package remote

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/internal/peer"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/pool"
)

// hostile is a server on loopback that answers like an agent, says it is
// the process claim, names tokenFile in its info, and keeps every
// Authorization header and body it is sent.
type hostile struct {
	srv   *httptest.Server
	mu    sync.Mutex
	heard []string
}

func (h *hostile) said() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.heard, "\n")
}

// startHostile serves on ln (a new loopback listener when nil).
func startHostile(t *testing.T, ln net.Listener, claim peer.Process, tokenFile string) *hostile {
	t.Helper()
	line, err := json.Marshal(session.Snapshot{Run: session.Run{Scenario: "svc"}, Pool: session.Pool{Workers: 2}})
	if err != nil {
		t.Fatal(err)
	}
	line = append(line, '\n')
	h := &hostile{}
	h.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body [1 << 10]byte
		n, _ := r.Body.Read(body[:])
		h.mu.Lock()
		h.heard = append(h.heard, r.Header.Get("Authorization"), string(body[:n]))
		h.mu.Unlock()
		switch strings.TrimPrefix(r.URL.Path, agent.DefaultPath) {
		case "":
			json.NewEncoder(w).Encode(map[string]any{"agent": "offtop", "schema": session.SchemaVersion, "name": "svc",
				"pid": claim.PID, "start_ticks": claim.Start, "control": true, "interval_ms": 20, "token_file": tokenFile})
		case "stream":
			for {
				if _, err := w.Write(line); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		default:
			http.Error(w, "no", http.StatusUnauthorized)
		}
	}))
	if ln != nil {
		h.srv.Listener.Close()
		h.srv.Listener = ln
	}
	h.srv.Start()
	t.Cleanup(h.srv.Close)
	return h
}

func me(t *testing.T) peer.Process {
	t.Helper()
	st, err := peer.StartTicks(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	return peer.Process{PID: os.Getpid(), Start: st}
}

// controlWithin asks for control and returns its answer, failing the test
// when none comes within 10 s (attach hung).
func controlWithin(t *testing.T, c *Client, what string) error {
	t.Helper()
	return within(t, what+": asking for control", c.CheckControl)
}

// within returns f's answer, failing the test when none comes within 10 s
// (attach hung).
func within(t *testing.T, what string, f func() error) error {
	t.Helper()
	res := make(chan error, 1)
	go func() { res <- f() }()
	select {
	case err := <-res:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: attach hung", what)
		return nil
	}
}

// TestHostileAgentGetsNoSecret: a server on loopback that answers like an
// agent and names, as its token file, a file with a secret in it (or a
// device, a FIFO, a link to the secret), and puts the same thing where
// attach looks, never receives the secret nor any token; attach answers
// at once. Claiming the pid of another process of the user, whose token
// file holds the secret, gets nothing either. Only the process that holds
// the listener, with a 0600 token file of its own, is sent its token.
func TestHostileAgentGetsNoSecret(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peers are checked from /proc")
	}
	const secret = "TOPSECRET0123456789abcdef"
	tmp := t.TempDir()
	secretFile := filepath.Join(tmp, "secret")
	if err := os.WriteFile(secretFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(tmp, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(tmp, "huge")
	if err := os.WriteFile(huge, []byte(strings.Repeat(secret, 1<<16)), 0o600); err != nil {
		t.Fatal(err)
	}
	wide := filepath.Join(tmp, "wide")
	if err := os.WriteFile(wide, []byte(secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(wide, 0o644); err != nil {
		t.Fatal(err)
	}
	self := me(t)
	// Where attach looks for the token of the process the server is (this
	// test's), each attack in turn.
	for _, c := range []struct {
		name string
		make func(path string) error
	}{
		{"symlink to the secret", func(p string) error { return os.Symlink(secretFile, p) }},
		{"hard link to the secret", func(p string) error { return os.Link(secretFile, p) }},
		{"/dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"/dev/stdin", func(p string) error { return os.Symlink("/dev/stdin", p) }},
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"a symlink to a FIFO", func(p string) error { return os.Symlink(fifo, p) }},
		{"a 0644 file", func(p string) error { return os.Link(wide, p) }},
		{"a huge file", func(p string) error { return os.Rename(huge, p) }},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o700) }},
	} {
		for _, named := range []string{secretFile, "/dev/zero", "/dev/stdin", fifo, huge, wide} {
			dir := t.TempDir()
			path := filepath.Join(dir, agent.TokenFileName(self.PID, self.Start))
			if err := c.make(path); err != nil {
				t.Fatal(err)
			}
			h := startHostile(t, nil, self, named)
			cl, err := Dial(h.srv.URL, Options{TokenDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			err = controlWithin(t, cl, c.name)
			cl.Close()
			h.srv.Close()
			if !errors.Is(err, ErrRefused) {
				t.Errorf("%s, info names %s: %v, want ErrRefused", c.name, named, err)
			}
			if said := h.said(); strings.Contains(said, secret) || strings.Contains(said, "Bearer") {
				t.Fatalf("%s, info names %s: the server was sent %q", c.name, named, said)
			}
			if c.name == "a huge file" {
				os.Rename(path, huge)
			}
		}
	}
	// Another process of the user, with its token file the secret: the
	// server claims to be it, with its pid and start time.
	other, oproc := sleeper(t, exec.Command("sleep", "60"))
	ost := oproc.Start
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, agent.TokenFileName(other.Process.Pid, ost)), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := startHostile(t, nil, peer.Process{PID: other.Process.Pid, Start: ost}, secretFile)
	cl, err := Dial(h.srv.URL, Options{TokenDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	err = controlWithin(t, cl, "claims another pid")
	cl.Close()
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "does not hold the socket") {
		t.Errorf("claiming pid %d: %v, want ErrRefused: does not hold the socket", other.Process.Pid, err)
	}
	if said := h.said(); strings.Contains(said, secret) || strings.Contains(said, "Bearer") {
		t.Fatalf("claiming another pid: the server was sent %q", said)
	}
	// The server is this process, its token file right: it gets that token.
	if err := os.WriteFile(filepath.Join(dir, agent.TokenFileName(self.PID, self.Start)), []byte("rightful\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h = startHostile(t, nil, self, secretFile)
	cl, err = Dial(h.srv.URL, Options{TokenDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	controlWithin(t, cl, "the rightful process")
	if said := h.said(); !strings.Contains(said, "Bearer rightful") || strings.Contains(said, secret) {
		t.Fatalf("the process that listens, with its token file: sent %q, want Bearer rightful", said)
	}
}

// agentDirEnv makes the test binary a program serving an agent with
// control on "ADDR DIR" (TestHelperAgentProcess).
const agentDirEnv = "OFFTOP_TEST_REMOTE_AGENT"

// TestHelperAgentProcess is not a test: run as a child, it serves an
// agent with control on ADDR, its token file in DIR, says its address
// and serves until killed.
func TestHelperAgentProcess(t *testing.T) {
	addr, dir, ok := strings.Cut(os.Getenv(agentDirEnv), " ")
	if !ok {
		t.Skip("a helper process only")
	}
	p, err := pool.New(pool.Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.Listen(addr, agent.Options{Name: "svc", Pool: p, Control: true, TokenDir: dir,
		Interval: 20 * time.Millisecond, Logf: func(string, ...any) {}})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println(a.Addr())
	select {}
}

// agentProcess starts a program with an agent on addr (TestHelperAgentProcess)
// and returns its address, its process and a kill.
func agentProcess(t *testing.T, addr, dir string) (string, peer.Process, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAgentProcess$")
	cmd.Env = append(os.Environ(), agentDirEnv+"="+addr+" "+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	kill := func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) }
	t.Cleanup(kill)
	sc := bufio.NewScanner(out)
	if !sc.Scan() || strings.HasPrefix(sc.Text(), "error") {
		t.Fatalf("the agent program did not start: %q %v", sc.Text(), sc.Err())
	}
	st, err := peer.StartTicks(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Text(), peer.Process{PID: cmd.Process.Pid, Start: st}, kill
}

// TestReconnectChecksTheProcess: attached to a program, which then dies,
// a server that takes its address claiming its pid and start time is sent
// no token (neither the one found nor one given) and the screen's Notice
// says that pid is gone; the program started again is
// another process: the Notice says so, its own token file's token is sent,
// the token given is not.
func TestReconnectChecksTheProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peers are checked from /proc")
	}
	dir := t.TempDir()
	addr, first, kill := agentProcess(t, "127.0.0.1:0", dir)
	tok, err := os.ReadFile(filepath.Join(dir, agent.TokenFileName(first.PID, first.Start)))
	if err != nil {
		t.Fatal(err)
	}
	found, err := Dial(addr, Options{TokenDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer found.Close()
	given, err := Dial(addr, Options{Token: strings.TrimSpace(string(tok)), TokenDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer given.Close()
	for _, c := range []*Client{found, given} {
		if err := controlWithin(t, c, "the program"); err != nil {
			t.Fatalf("control of the program: %v", err)
		}
	}
	kill()
	for _, c := range []*Client{found, given} {
		testkit.WaitFor(t, "Disconnected", 5*time.Second, func() bool { return !c.Snapshot().Disconnected.IsZero() })
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	h := startHostile(t, ln, first, filepath.Join(dir, agent.TokenFileName(first.PID, first.Start)))
	for _, c := range []*Client{found, given} {
		testkit.WaitFor(t, "the impostor read", 5*time.Second, func() bool { return c.Snapshot().Disconnected.IsZero() })
		if n := c.Snapshot().Notice; !strings.Contains(n, fmt.Sprintf("is another process since ")) || !strings.Contains(n, fmt.Sprintf("pid %d is gone", first.PID)) {
			t.Errorf("Notice %q, want: is another process since ...: pid %d is gone", n, first.PID)
		}
		if err := controlWithin(t, c, "the impostor"); !errors.Is(err, ErrRefused) {
			t.Errorf("control of the impostor: %v, want ErrRefused", err)
		}
	}
	if said := h.said(); strings.Contains(said, "Bearer") || strings.Contains(said, strings.TrimSpace(string(tok))) {
		t.Fatalf("the impostor was sent %q", said)
	}
	h.srv.CloseClientConnections()
	h.srv.Close()
	_, second, _ := agentProcess(t, addr, dir)
	for _, c := range []*Client{found, given} {
		testkit.WaitFor(t, "the new program read", 5*time.Second, func() bool {
			return strings.Contains(c.Snapshot().Notice, fmt.Sprintf("pid %d (was pid %d)", second.PID, first.PID))
		})
	}
	if err := controlWithin(t, found, "the new program"); err != nil {
		t.Errorf("control of the new program with its own token file: %v", err)
	}
	if n := found.Snapshot().Notice; !strings.Contains(n, "its own token file read") {
		t.Errorf("Notice %q, want: its own token file read", n)
	}
	if err := controlWithin(t, given, "the new program, token given"); !errors.Is(err, ErrRefused) {
		t.Errorf("the token given sent to another process: %v, want ErrRefused", err)
	}
}

// TestChangedNotice: the notice names what changed: another pid, the same
// pid gone (an impostor claiming it, whatever start it says), the same
// pid running but not checked, the same pid started anew.
func TestChangedNotice(t *testing.T) {
	was := peerID{proc: peer.Process{PID: 41, Start: 7}, checked: true, seen: true}
	for _, c := range []struct {
		now   peerID
		token bool
		why   string
		want  string
	}{
		{peerID{proc: peer.Process{PID: 42, Start: 9}, checked: true}, true, "", "is another process since "},
		{peerID{proc: peer.Process{PID: 41, Start: 7}}, false, "no pid 41 runs", "is another process since "},
		{peerID{proc: peer.Process{PID: 41, Start: 8}}, false, "no pid 41 runs", ": pid 41 is gone"},
		{peerID{proc: peer.Process{PID: 41, Start: 7}, live: true}, false, "cannot read its descriptors", "could not be checked to be pid 41 since "},
		{peerID{proc: peer.Process{PID: 41, Start: 7}, blind: true}, false, "no /proc", "could not be checked to be pid 41 since "},
		{peerID{proc: peer.Process{PID: 41, Start: 8}, checked: true, live: true}, true, "", "pid 41 again, started anew; its own token file read"},
	} {
		got := changedNotice("127.0.0.1:7070", was, c.now, c.token, c.why)
		if !strings.HasPrefix(got, "127.0.0.1:7070 ") || !strings.Contains(got, c.want) || c.why != "" && !strings.HasSuffix(got, ": no token sent ("+c.why+")") {
			t.Errorf("%+v: %q, want %q", c.now, got, c.want)
		}
	}
}

// sleeper starts cmd (a process that waits), ends it when the test ends,
// and returns it with its identity (pid and start ticks).
func sleeper(t *testing.T, cmd *exec.Cmd) (*exec.Cmd, peer.Process) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	st, err := peer.StartTicks(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, peer.Process{PID: cmd.Process.Pid, Start: st}
}

// TestRedirectsAreNotFollowed: attach talks to the address it was given
// only. An agent whose actions answer 307 to another port does not get
// the given token sent there; one whose info answers 302 to a real agent
// is no agent (the other is never asked, so never checked, its token file
// never read, its pool never resized).
func TestRedirectsAreNotFollowed(t *testing.T) {
	other := startHostile(t, nil, peer.Process{PID: 1, Start: 5}, "")
	h := startHostile(t, nil, peer.Process{PID: 1, Start: 5}, "")
	redirect := func(to string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.srv.URL+r.URL.Path, http.StatusTemporaryRedirect)
		})
	}
	// The actions of h redirect; its info and stream answer.
	inner := h.srv.Config.Handler
	h.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			redirect("").ServeHTTP(w, r)
			return
		}
		inner.ServeHTTP(w, r)
	})
	c, err := Dial(h.srv.URL, Options{Token: "GIVENTOKEN123"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = within(t, "an action answered 307", func() error { return <-c.Post(session.Action{Kind: session.SetWorkers, N: 3}) })
	if err == nil || !strings.Contains(err.Error(), "307") {
		t.Errorf("action redirected: %v, want the 307 as the answer", err)
	}
	if strings.Contains(other.said(), "GIVENTOKEN123") || other.said() != "" {
		t.Errorf("the redirect's target was sent %q", other.said())
	}
	// An info that redirects.
	info := httptest.NewServer(redirect(""))
	defer info.Close()
	if c2, err := Dial(info.URL, Options{}); err == nil {
		c2.Close()
		t.Errorf("info redirected: read as an agent, want not an agent (307)")
	} else if !errors.Is(err, ErrNotAgent) || !strings.Contains(err.Error(), "307") {
		t.Errorf("info redirected: %v, want not an agent (307)", err)
	}
	if other.said() != "" {
		t.Errorf("the redirect's target was asked: %q", other.said())
	}
}
