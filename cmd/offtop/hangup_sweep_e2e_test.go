package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	"golang.org/x/sys/unix"
)

// onScreen is a runUntilTerminalGone ready condition: text on the pty.
func onScreen(text string) func(string) bool {
	return func(screen string) bool { return strings.Contains(screen, text) }
}

// runUntilTerminalGone runs sh -c script (bin as $0, the exit status
// file as $1) on a pty, under a parent that ignores SIGHUP, until ready
// holds of what the pty showed; then it closes the master and returns
// the exit status offtop left, failing t unless offtop ended within
// stopNotWaiting.
func runUntilTerminalGone(t *testing.T, script string, ready func(screen string) bool) string {
	t.Helper()
	bin := buildBinary(t)
	master, slave := openPty(t, 100, 30)
	defer master.Close()
	rc := filepath.Join(t.TempDir(), "rc")
	cmd := exec.Command("sh", "-c", `trap "" HUP; `+script+`; echo $? > "$1"`, bin, rc)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	defer cmd.Process.Kill()
	// The master is read between polls of 100ms, not by a read that
	// blocks: a close waits for a blocked read to return, so the master
	// would stay open on a quiet pty.
	var screen lockedBuffer
	stopRead, readDone := make(chan struct{}), make(chan struct{})
	mfd := int(master.Fd())
	go func() {
		defer close(readDone)
		buf := make([]byte, 4096)
		for {
			select {
			case <-stopRead:
				return
			default:
			}
			fds := []unix.PollFd{{Fd: int32(mfd), Events: unix.POLLIN}}
			if n, err := unix.Poll(fds, 100); err != nil && err != unix.EINTR || n == 0 {
				continue
			}
			n, err := unix.Read(mfd, buf)
			if err != nil {
				return
			}
			_, _ = screen.Write(buf[:n])
		}
	}()
	testkit.WaitFor(t, "offtop running on the pty", 20*time.Second, func() bool { return ready(screen.String()) })
	pid := testkit.ChildOf(t, cmd.Process.Pid)
	defer syscall.Kill(pid, syscall.SIGKILL)

	close(stopRead)
	<-readDone
	master.Close()
	gone := time.Now()
	testkit.WaitFor(t, "offtop's exit after its terminal went away", stopNotWaiting, func() bool {
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
	return strings.TrimSpace(string(got))
}

// TestSweepTerminalGoneEndsTheSweep: a sweep on a terminal that goes
// away (the pty's master closed) under a parent that ignores SIGHUP
// stops as a hang-up stops it, exit 129, well before its 30s run ends.
func TestSweepTerminalGoneEndsTheSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	got := runUntilTerminalGone(t, `"$0" sweep --scenario count --workers 1 --repeat 1 --duration 30s`, onScreen("sweep: count at"))
	if got != "129" {
		t.Errorf("exit status %s, want 129 (as SIGHUP)", got)
	}
}

// TestHeadlessTerminalGoneEndsTheRun: offtop --headless, its JSON Lines
// to a file, stdin and stderr the terminal that goes away: exit 129.
func TestHeadlessTerminalGoneEndsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	out := filepath.Join(t.TempDir(), "lines")
	// Ready once offtop has written a line (its handlers are installed):
	// a terminal gone before that ends it by SIGHUP's default action,
	// with no final line.
	got := runUntilTerminalGone(t, `"$0" --headless --no-summary --scenario count --workers 1 >`+out, func(string) bool {
		b, _ := os.ReadFile(out)
		return bytes.Contains(b, []byte("\n"))
	})
	if got != "129" {
		t.Errorf("exit status %s, want 129 (as SIGHUP)", got)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), `"final":true`) {
		t.Errorf("no final line in the JSON Lines:\n%.300s", b)
	}
}
