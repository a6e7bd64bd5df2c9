package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPty opens a pseudo-terminal pair of cols x rows: the master, and
// the slave opened as a file for a child's stdin, stdout and stderr.
func openPty(t *testing.T, cols, rows int) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil { // unlockpt
		m.Close()
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN) // ptsname
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}); err != nil {
		m.Close()
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	return m, s
}

// lockedBuffer is a bytes.Buffer safe for one writer and other readers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTerminalGoneEndsTheRun: the dashboard on a terminal that goes away
// (its pty's master closed, as a terminal emulator or an ssh session that
// dies does) under a parent that ignores SIGHUP, so that no hang-up
// signal reaches offtop (the kernel sends it to the session leader
// only): offtop ends as a hang-up ends it, exit 129, within
// stopNotWaiting, its summary on stderr (a file here) since the terminal
// cannot take it. It ran on for good, reading and writing a dead
// terminal.
func TestTerminalGoneEndsTheRun(t *testing.T) {
	bin := buildBinary(t)
	master, slave := openPty(t, 100, 30)
	defer master.Close()
	rc := filepath.Join(t.TempDir(), "rc")
	stderrFile := rc + ".stderr"
	cmd := exec.Command("sh", "-c", `trap "" HUP; "$0" --scenario count --workers 1 2>"$2"; echo $? > "$1"`, bin, rc, stderrFile)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	defer cmd.Process.Kill()
	var screen lockedBuffer
	read := make(chan struct{})
	go func() { defer close(read); _, _ = io.Copy(&screen, master) }()
	waitFor(t, "dashboard on the pty", 10*time.Second, func() bool { return strings.Contains(screen.String(), "sizes tried") })
	pid := childOf(t, cmd.Process.Pid)
	defer syscall.Kill(pid, syscall.SIGKILL)

	master.Close()
	gone := time.Now()
	waitFor(t, "offtop's exit after its terminal went away", stopNotWaiting, func() bool {
		st := procState(pid)
		return st == "" || st == "Z"
	})
	t.Logf("exit %v after the terminal went away", time.Since(gone).Round(time.Millisecond))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("sh: %v", err)
	}
	got, err := os.ReadFile(rc)
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.TrimSpace(string(got)); s != "129" {
		t.Errorf("exit status %s, want 129 (as SIGHUP)", s)
	}
	if b, _ := os.ReadFile(stderrFile); !strings.Contains(string(b), "offtop ran") {
		t.Errorf("no summary on stderr (a file: where it can still go):\n%s", b)
	}
}
