package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

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
	stderrFile := filepath.Join(t.TempDir(), "stderr")
	got := runUntilTerminalGone(t, `"$0" --scenario count --workers 1 2>`+stderrFile, onScreen("sizes tried"))
	if got != "129" {
		t.Errorf("exit status %s, want 129 (as SIGHUP)", got)
	}
	if b, _ := os.ReadFile(stderrFile); !strings.Contains(string(b), "offtop ran") {
		t.Errorf("no summary on stderr (a file: where it can still go):\n%s", b)
	}
}
