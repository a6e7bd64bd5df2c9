package peer

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func self(t *testing.T) Process {
	t.Helper()
	st, err := StartTicks(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	return Process{os.Getpid(), st}
}

// TestHoldsListener: this process holds its own listener, on 127.0.0.1
// and on the IPv6 wildcard; a child does not, nor does this process with
// another start time; a port nobody listens on is nobody's.
func TestHoldsListener(t *testing.T) {
	me := self(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().(*net.TCPAddr)
	if err := HoldsListener(me, addr); err != nil {
		t.Fatalf("own listener: %v", err)
	}
	if err := HoldsListener(Process{me.PID, me.Start + 1}, addr); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("another start time: %v, want ErrNotHeld", err)
	}
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	cst, err := StartTicks(child.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := HoldsListener(Process{child.Process.Pid, cst}, addr); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("a child claimed: %v, want ErrNotHeld", err)
	}
	if wild, err := net.Listen("tcp", ":0"); err == nil { // dual stack: tcp6 ::
		defer wild.Close()
		port := wild.Addr().(*net.TCPAddr).Port
		if err := HoldsListener(me, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}); err != nil {
			t.Errorf("own wildcard listener: %v", err)
		}
	}
	ln.Close()
	if err := HoldsListener(me, addr); !errors.Is(err, ErrNotHeld) {
		t.Fatalf("closed: %v, want ErrNotHeld", err)
	}
}

// TestReadToken: a 0600 file of the user with a token is read; every
// other thing at the path is refused unread, at once.
func TestReadToken(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte("abc123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, err := ReadToken(good); err != nil || tok != "abc123" {
		t.Fatalf("good: %q %v", tok, err)
	}
	bad := map[string]func(p string) error{
		"symlink to the secret": func(p string) error { return os.Symlink(secret, p) },
		"hard link":             func(p string) error { return os.Link(secret, p) },
		"fifo":                  func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"/dev/zero":             func(p string) error { return os.Symlink("/dev/zero", p) },
		"/dev/stdin":            func(p string) error { return os.Symlink("/dev/stdin", p) },
		"directory":             func(p string) error { return os.Mkdir(p, 0o700) },
		"mode 0644":             func(p string) error { return os.WriteFile(p, []byte("abc\n"), 0o644) },
		"huge": func(p string) error {
			return os.WriteFile(p, []byte(strings.Repeat("a", MaxTokenBytes+1)), 0o600)
		},
		"a header break": func(p string) error { return os.WriteFile(p, []byte("abc\r\nX-Evil: 1"), 0o600) },
		"empty":          func(p string) error { return os.WriteFile(p, nil, 0o600) },
	}
	for name, mk := range bad {
		p := filepath.Join(dir, strings.ReplaceAll(name, "/", "_"))
		if err := mk(p); err != nil {
			t.Fatal(err)
		}
		if tok, err := ReadToken(p); !errors.Is(err, ErrTokenFile) {
			t.Errorf("%s: %q %v, want ErrTokenFile", name, tok, err)
		}
	}
	if _, err := ReadToken(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("none: %v, want ErrNotExist", err)
	}
}

// TestReadTokenOfAnotherUser: a token file of this user is read for a
// process of this user only: a process of another uid (started as
// nobody, so root only) gets nothing, nor does a status whose uids differ.
func TestReadTokenOfAnotherUser(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(path, []byte("abc123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, err := ReadTokenOf(self(t), path); err != nil || tok != "abc123" {
		t.Fatalf("own process: %q %v", tok, err)
	}
	for _, st := range []string{"Name:\tx\nUid:\t0\t65534\t0\t0\n", "Name:\tx\n", "Uid:\t0 0\n"} {
		if uid, err := parseUID([]byte(st)); err == nil {
			t.Errorf("status %q: uid %d, want an error", st, uid)
		}
	}
	if uid, err := parseUID([]byte("Name:\tx\nUid:\t1000\t1000\t1000\t1000\nGid:\t5\t5\t5\t5\n")); err != nil || uid != 1000 {
		t.Errorf("status of uid 1000: %d %v", uid, err)
	}
	if os.Getuid() != 0 {
		t.Skip("starting a process of another uid needs root")
	}
	other := exec.Command("sleep", "60")
	other.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	st, err := StartTicks(other.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := ReadTokenOf(Process{other.Process.Pid, st}, path); !errors.Is(err, ErrTokenFile) || !strings.Contains(err.Error(), "uid 65534") {
		t.Errorf("a process of uid 65534: %q %v, want ErrTokenFile: uid 65534", tok, err)
	}
}

// TestZombieIsGone: a process that exited and is not reaped yet (state Z)
// is gone to StartTicks and Alive: its sockets are closed, so a peer
// claiming its pid is another process.
func TestZombieIsGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	stat := "/proc/" + strconv.Itoa(pid) + "/stat"
	for deadline := time.Now().Add(10 * time.Second); ; {
		b, err := os.ReadFile(stat)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.LastIndexByte(b, ')'); i > 0 && bytes.HasPrefix(b[i+1:], []byte(" Z")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child never became a zombie: %s", b)
		}
		runtime.Gosched()
	}
	if _, err := StartTicks(pid); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("StartTicks of a zombie: %v, want os.ErrNotExist", err)
	}
	if alive, known := Alive(Process{PID: pid}); alive || !known {
		t.Errorf("Alive of a zombie: alive %v known %v, want gone", alive, known)
	}
}
