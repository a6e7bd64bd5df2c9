package main

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/fleet"
	"github.com/offtop/offtop/internal/remote"
)

// TestParseFleet: more than one ADDR, or --from, is a fleet: the ADDRs
// given then the file's, one a line, comments and blank lines skipped;
// one ADDR stays the one-process attach.
func TestParseFleet(t *testing.T) {
	from := filepath.Join(t.TempDir(), "fleet")
	if err := os.WriteFile(from, []byte("# the replicas\n127.0.0.1:7072\n\n  127.0.0.1:7073  # the last\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, _, err := parseAttach([]string{"127.0.0.1:7070", "--sort", "p99", "127.0.0.1:7071", "--from", from})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"127.0.0.1:7070", "127.0.0.1:7071", "127.0.0.1:7072", "127.0.0.1:7073"}
	if o.attach.fleet == nil || !slices.Equal(o.attach.fleet.list, want) || o.attach.fleet.sort != fleet.ByLoopP99 {
		t.Fatalf("fleet %+v, want %q by p99", o.attach.fleet, want)
	}
	if o, _, err := parseAttach([]string{"127.0.0.1:7070"}); err != nil || o.attach.fleet != nil {
		t.Fatalf("one ADDR: fleet %+v, %v", o.attach.fleet, err)
	}
	one := filepath.Join(t.TempDir(), "one")
	os.WriteFile(one, []byte("127.0.0.1:7070\n"), 0o600)
	if o, _, err := parseAttach([]string{"--from", one}); err != nil || o.attach.fleet != nil || o.attach.addr != "127.0.0.1:7070" {
		t.Fatalf("--from with one ADDR: %+v, %v", o.attach, err)
	}
}

// TestParseFleetRefusals: each refusal is one line naming the cause.
func TestParseFleetRefusals(t *testing.T) {
	dir := t.TempDir()
	empty, spaced := filepath.Join(dir, "empty"), filepath.Join(dir, "spaced")
	os.WriteFile(empty, []byte("# none\n"), 0o600)
	os.WriteFile(spaced, []byte("a:1 b:2\n"), 0o600)
	// over, 1 MiB of comments then an address: the bound falls inside the
	// address, which must not be read cut short (a:7 for a:7070).
	over, long := filepath.Join(dir, "over"), filepath.Join(dir, "long")
	os.WriteFile(over, []byte(strings.Repeat("# "+strings.Repeat("c", 61)+"\n", 1<<20/64-1)+strings.Repeat("#", 60)+"\na:7070\n"), 0o600)
	os.WriteFile(long, []byte("a:1\n"+strings.Repeat("#", 70<<10)+"\nb:2\n"), 0o600)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"a:1", "a:1"}, `"a:1" given twice (ADDR 1 and 2)`},
		{[]string{"a:1", "b:2", "--load", "/ping=10/s"}, "--load drives one program"},
		{[]string{"a:1", "b:2", "--sort", "speed"}, `--sort: unknown sort key "speed"`},
		{[]string{"a:1", "b:2", "--headless", "--keys", "1s:3"}, "an action with --headless and more than one ADDR"},
		{[]string{"a:1", "b"}, `no port`},
		{[]string{"--from", filepath.Join(dir, "none")}, "--from: open"},
		{[]string{"--from", empty}, "has no address"},
		{[]string{"--from", spaced}, "line 1: one address a line"},
		{[]string{"--from", over, "b:2"}, "is over 1 MiB"},
		{[]string{"--from", long}, "line 2 is over 64 KiB"},
		{[]string{"127.0.0.1:7070", "http://127.0.0.1:07070/debug/offtop"}, `"127.0.0.1:7070" and "http://127.0.0.1:07070/debug/offtop" are one agent (ADDR 1 and 2)`},
		{[]string{"Host:80", "http://host/"}, "are one agent (ADDR 1 and 2)"},
		{[]string{"a:1", "b:2", "--token", "t"}, "--token is one process's token"},
		{[]string{"a:1", "--sort", "speed"}, `--sort: unknown sort key "speed"`}, // one ADDR too
		{[]string{"a:1", "--token", "abc\r\nX-Evil: 1"}, "--token: not a token: at most 256 bytes"},
		{[]string{"a:1", "--token", strings.Repeat("t", 257)}, "--token: not a token"},
		{[]string{"--from", fifo}, "has no address"}, // no writer: read at once, not waited for
	} {
		_, _, err := parseAttach(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.args, err, c.want)
		}
	}
}

// TestFleetUnreachableAtStart: a fleet member nothing listens on is
// shown down and dialled again while another is read (--headless: one
// disconnected line on stderr names it, exit 0 at --duration, the live
// member's lines on stdout);
// without a terminal and --headless the one line is that; with none read
// it is refused before the screen: one line naming the first, exit 2.
func TestFleetUnreachableAtStart(t *testing.T) {
	a, _ := startService(t, "127.0.0.1:0", "--load", "0")
	var none []string
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		none = append(none, ln.Addr().String())
		ln.Close()
	}
	var stdout, stderr strings.Builder
	code := runAttach([]string{a, none[0], "--headless", "--duration", "1s"}, &stdout, &stderr, newCrasher(&stderr))
	want := "offtop: disconnected from " + none[0] + " at "
	if code != 0 || !strings.HasPrefix(stderr.String(), want) || !strings.HasSuffix(stderr.String(), "; reconnecting every 500ms\n") ||
		strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stdout.String(), `"addr":"`+a+`"`) {
		t.Fatalf("one down: exit %d, stderr %q, stdout %d bytes; want 0, %q and %s's lines", code, stderr.String(), stdout.Len(), want, a)
	}
	stdout.Reset()
	stderr.Reset()
	code = runAttach([]string{a, none[0]}, &stdout, &stderr, newCrasher(&stderr)) // stdout no terminal
	if want := "offtop: stdout is not a terminal; use --headless for JSON Lines\n"; code != exitUsage || stderr.String() != want {
		t.Fatalf("no terminal, one down: exit %d, stderr %q; want %d and the one line %q", code, stderr.String(), exitUsage, want)
	}
	stdout.Reset()
	stderr.Reset()
	web := httptest.NewServer(http.NotFoundHandler()) // answers, and is no agent
	defer web.Close()
	other := strings.TrimPrefix(web.URL, "http://")
	code = runAttach([]string{a, none[0], other, "--headless"}, &stdout, &stderr, newCrasher(&stderr))
	if out := stderr.String(); code != exitUsage || !strings.HasPrefix(out, "offtop: attach: "+other+": ") || strings.Count(out, "\n") != 1 {
		t.Fatalf("a non-agent beside a down member: exit %d, stderr %q; want %d and one line naming %s", code, out, exitUsage, other)
	}
	stdout.Reset()
	stderr.Reset()
	code = runAttach([]string{none[0], none[1], "--headless"}, &stdout, &stderr, newCrasher(&stderr))
	want = "offtop: attach: " + none[0] + ": unreachable: nothing listens on " + none[0] + "\n"
	if code != exitUsage || stderr.String() != want || stdout.Len() != 0 {
		t.Fatalf("none read: exit %d, stderr %q, want %d and %q", code, stderr.String(), exitUsage, want)
	}
}

// TestFleetSilentMemberDoesNotHoldTheStart: a member that accepts and
// never answers is given up dialling fleetGrace after the first member is
// read, not at its dial's 5s timeout, and dialled again later; the start
// says which path it took in the member's down reason.
func TestFleetSilentMemberDoesNotHoldTheStart(t *testing.T) {
	a, _ := startService(t, "127.0.0.1:0", "--load", "0")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // accepted, never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	silent := ln.Addr().String()
	clients, errs := dialFleet([]string{a, silent}, remote.Options{}, false, 50*time.Millisecond)
	defer clients[0].Close()
	if errs[0] != nil || clients[0] == nil {
		t.Fatalf("the service: %v", errs[0])
	}
	want := silent + ": no answer within 50ms of the first member read"
	if clients[1] != nil || !errors.Is(errs[1], remote.ErrUnreachable) || !strings.Contains(errs[1].Error(), want) {
		t.Fatalf("the silent member: client %v, error %v; want ErrUnreachable naming %q", clients[1], errs[1], want)
	}
}
