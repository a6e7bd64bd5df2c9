package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	"github.com/offtop/offtop/internal/session"
)

var (
	serviceOnce sync.Once
	servicePath string
	serviceErr  error
)

// buildService builds examples/service once per test binary run.
func buildService(t *testing.T) string {
	t.Helper()
	serviceOnce.Do(func() {
		dir := filepath.Dir(buildBinary(t))
		servicePath = filepath.Join(dir, "service")
		out, err := exec.Command("go", "build", "-o", servicePath, "../../examples/service").CombinedOutput()
		if err != nil {
			serviceErr = fmt.Errorf("go build examples/service: %v\n%s", err, out)
		}
	})
	if serviceErr != nil {
		t.Fatal(serviceErr)
	}
	return servicePath
}

var servingRE = regexp.MustCompile(`serving http://([0-9.:]+)/ping`)

// startService runs the example on listen and returns its address once it
// says it serves; it is killed at the end of the test (or by kill).
func startService(t *testing.T, listen string, args ...string) (addr string, kill func()) {
	t.Helper()
	cmd := exec.Command(buildService(t), append([]string{"--listen", listen}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	kill = func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) }
	t.Cleanup(kill)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case addr = <-found:
		return addr, kill
	case <-time.After(10 * time.Second):
		t.Fatal("the example did not say where it serves within 10s")
	}
	return "", kill
}

func poolWorkers(t *testing.T, addr string) int {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/pool")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct{ Workers int }
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v.Workers
}

// TestAttachExampleHeadless: attached to the
// example, --headless lines have every field a local run has, lines
// written after 3.5s (the 3s:4 step, plus a margin for the round trip)
// say 4 workers, and the example's own pool has 4.
func TestAttachExampleHeadless(t *testing.T) {
	addr, _ := startService(t, "127.0.0.1:0")
	cmd := exec.Command(buildBinary(t), "attach", addr, "--headless", "--duration", "6s", "--keys", "3s:4")
	var n, late int
	stderr := headlessLines(t, cmd, func(line string, at time.Duration, m map[string]any) {
		n++
		if at > 3500*time.Millisecond {
			late++
			if m["workers"] != float64(4) {
				t.Errorf("line %d at %v says %v workers, want 4", n, at.Round(time.Millisecond), m["workers"])
			}
		}
	})
	if n < 10 || late < 3 {
		t.Fatalf("%d lines, %d after 3.5s: want a line every 250ms for 6s\n%s", n, late, stderr)
	}
	if w := poolWorkers(t, addr); w != 4 {
		t.Fatalf("the example's pool has %d workers, want 4", w)
	}
	if !strings.Contains(stderr, "service") {
		t.Errorf("no summary of the service on stderr:\n%s", stderr)
	}
}

// TestAttachRefusals: each cause is one line naming it, exit 2.
func TestAttachRefusals(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	bin := buildBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	notAgent := httptest.NewServer(http.NotFoundHandler())
	defer notAgent.Close()
	otherSchema := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"agent":"offtop","schema":99}`)
	}))
	defer otherSchema.Close()
	addr, _ := startService(t, "127.0.0.1:0")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unreachable", []string{closed}, "unreachable"},
		{"not an agent", []string{notAgent.URL}, "not an offtop agent"},
		{"other schema", []string{otherSchema.URL}, "another schema version"},
		{"wrong token", []string{addr, "--token", "nope", "--keys", "1s:4"}, "control refused: wrong token"},
		{"no address", nil, "no ADDR"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"attach", "--headless"}, c.args...)...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			msg := strings.TrimSpace(stderr.String())
			first, _, _ := strings.Cut(msg, "\n")
			if code != exitUsage || !strings.Contains(first, c.want) {
				t.Fatalf("exit %d, stderr %q: want exit 2 and %q on the first line", code, msg, c.want)
			}
		})
	}
	if w := poolWorkers(t, addr); w != 2 {
		t.Fatalf("a refused attach changed the pool: %d workers, want 2", w)
	}
}

// freePort is a loopback address nobody listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestAttachTUIDisconnected: the example killed mid-attach, the dashboard
// says "disconnected" (no panic, no figures); restarted on the same
// address, live figures are back within 2s; q exits 0 and restores the
// terminal.
func TestAttachTUIDisconnected(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	bin := buildBinary(t)
	listen := freePort(t)
	addr, kill := startService(t, listen)
	tm := testkit.NewTmux(t, 100, 30, bin+" attach "+addr+"; echo EXIT=$?; sleep 60")
	tm.WaitScreen("dashboard", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "service") && strings.Contains(s, "sizes tried")
	})
	kill()
	tm.WaitScreen("disconnected", 3*time.Second, func(s string) bool {
		return strings.Contains(s, "disconnected from "+addr) && !strings.Contains(s, "sizes tried")
	})
	startService(t, listen)
	back := time.Now()
	tm.WaitScreen("live figures again", 6*time.Second, func(s string) bool {
		return strings.Contains(s, "sizes tried") && !strings.Contains(s, "disconnected")
	})
	t.Logf("live again %v after the example said it serves", time.Since(back).Round(time.Millisecond))
	tm.Run("send-keys", "q")
	s := tm.WaitScreen("EXIT=", 5*time.Second, func(s string) bool { return strings.Contains(s, "EXIT=") })
	if !strings.Contains(s, "EXIT=0") {
		t.Errorf("exit status not 0:\n%s", s)
	}
	if alt := tm.Display("#{alternate_on}"); alt != "0" {
		t.Errorf("alternate screen still on (%s)", alt)
	}
}

// TestServiceRefusesNonLoopback: the example binds another address only
// with --allow-remote.
func TestServiceRefusesNonLoopback(t *testing.T) {
	out, err := exec.Command(buildService(t), "--listen", "0.0.0.0:0").CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "not loopback") {
		t.Fatalf("--listen 0.0.0.0:0: %v\n%s", err, out)
	}
}

// TestServiceNoAgentSaysSo: with --no-agent the example says it runs no
// agent, never where one would be nor to attach to it, and indeed serves
// none.
func TestServiceNoAgentSaysSo(t *testing.T) {
	cmd := exec.Command(buildService(t), "--listen", "127.0.0.1:0", "--load", "0", "--no-agent")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var said []string
	var addr string
	for addr == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the example ended before it said where it serves:\n%s", strings.Join(said, "\n"))
			}
			said = append(said, l)
			if m := servingRE.FindStringSubmatch(l); m != nil {
				addr = m[1]
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the example did not say where it serves within 10s:\n%s", strings.Join(said, "\n"))
		}
	}
	// Lines said after the serving one would come at once; give them a moment.
	for done := time.After(300 * time.Millisecond); ; {
		select {
		case l, ok := <-lines:
			if ok {
				said = append(said, l)
				continue
			}
		case <-done:
		}
		break
	}
	out := strings.Join(said, "\n")
	if !strings.Contains(out, "no offtop agent") || strings.Contains(out, "agent at") || strings.Contains(out, "offtop attach "+addr) {
		t.Errorf("--no-agent: want it to say there is no agent, and nothing to attach to:\n%s", out)
	}
	resp, err := http.Get("http://" + addr + "/debug/offtop/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("--no-agent: /debug/offtop/ answers %s, want 404", resp.Status)
	}
}

// TestAttachHeadlessOutOfRange: an agent whose stream has a worker share
// of 1e308 (first line and mid-stream) and other figures out of their
// range: attach --headless writes every line as valid JSON with null in
// their place, goes on to the end of --duration, exits 0 and says on
// stderr how many figures were out of range. It exited 1 at the first
// such line ("json: error calling MarshalJSON for type session.Shares").
func TestAttachHeadlessOutOfRange(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	bin := buildBinary(t)
	// Real lines, from offtop itself.
	out, err := exec.Command(bin, "--headless", "--no-summary", "--scenario", "count", "--workers", "2", "--duration", "1500ms").Output()
	if err != nil {
		t.Fatal(err)
	}
	real := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(real) < 4 {
		t.Fatalf("%d lines from a 1.5s run", len(real))
	}
	busyRE := regexp.MustCompile(`"worker_busy":\[[^\]]*\]`)
	bad := func(l, busy string) string {
		if !busyRE.MatchString(l) {
			t.Fatalf("no worker_busy in %s", l)
		}
		return busyRE.ReplaceAllString(l, `"worker_busy":`+busy)
	}
	lines := []string{
		bad(real[0], "[1e308,0.5]"),
		real[1],
		bad(real[2], "[-1e308,1.5]"),
		strings.Replace(real[3], `"loop_busy":`, `"loop_busy":1e300,"x":`, 1),
	}
	agentPath := "/debug/offtop/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case agentPath:
			fmt.Fprintf(w, `{"agent":"offtop","schema":%d,"name":"count","pid":1,"control":false,"interval_ms":100}`, session.SchemaVersion)
		case agentPath + "stream":
			fl := w.(http.Flusher)
			for i := 0; ; i++ {
				if _, err := io.WriteString(w, lines[i%len(lines)]+"\n"); err != nil {
					return
				}
				fl.Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	cmd := exec.Command(bin, "attach", srv.URL, "--headless", "--duration", "2s")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("attach: %v\n%s", err, stderr.String())
	}
	got := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(got) < len(lines)+1 {
		t.Fatalf("%d lines in 2s of a line every 100ms:\n%s\n%s", len(got), stdout.String(), stderr.String())
	}
	nulls := 0
	for i, l := range got {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, l)
		}
		busy, _ := m["worker_busy"].([]any)
		if len(busy) == 2 && busy[0] == nil {
			nulls++
		}
	}
	if nulls < 2 {
		t.Errorf("%d lines with worker_busy [null, ...], want one per bad line sent (2 or more)", nulls)
	}
	if !strings.Contains(stderr.String(), "sent a figure out of its range") || !regexp.MustCompile(`\d+ figures from .* were out of their range`).MatchString(stderr.String()) {
		t.Errorf("stderr says nothing of the figures out of range:\n%s", stderr.String())
	}
}

// TestServiceStopRemovesTokenFile: SIGINT, SIGTERM and SIGHUP (the
// terminal closed) each end the example within 5s with its token file
// removed: a stale file names a pid another process may reuse.
func TestServiceStopRemovesTokenFile(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(buildService(t), "--listen", "127.0.0.1:0", "--load", "0")
			cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+dir)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			defer func() {
				cmd.Process.Kill()
				<-done
			}()
			tokens := func() []string {
				m, _ := filepath.Glob(filepath.Join(dir, "offtop-agent-*.token"))
				return m
			}
			testkit.WaitFor(t, "the example's token file", 10*time.Second, func() bool { return len(tokens()) == 1 })
			cmd.Process.Signal(sig)
			select {
			case <-done:
				done <- nil // for the deferred wait
			case <-time.After(5 * time.Second):
				t.Fatalf("still running 5s after %v", sig)
			}
			if m := tokens(); len(m) != 0 {
				t.Errorf("after %v the token file is left: %v", sig, m)
			}
		})
	}
}
