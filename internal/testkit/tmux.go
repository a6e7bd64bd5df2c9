package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tmux is one private tmux server (its own socket in the test's temporary
// directory) with one pane, killed when the test ends.
type Tmux struct {
	t    testing.TB
	sock string
}

// NewTmux starts command in a detached cols x rows pane. It skips t when
// tmux is not installed.
func NewTmux(t testing.TB, cols, rows int, command string) *Tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (apt-get install tmux); .ci/run installs it")
	}
	tm := &Tmux{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	tm.Run("new-session", "-d", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), command)
	t.Cleanup(func() { exec.Command("tmux", "-S", tm.sock, "kill-server").Run() })
	return tm
}

// Run runs one tmux command on this server and returns its output; an
// error fails the test.
func (tm *Tmux) Run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.sock}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Screen is the pane's text (capture-pane -p).
func (tm *Tmux) Screen() string { return tm.Run("capture-pane", "-p") }

// WaitScreen polls the pane until cond holds and returns that screen;
// after limit (Patience when 0) it fails the test, showing the screen.
func (tm *Tmux) WaitScreen(what string, limit time.Duration, cond func(string) bool) string {
	tm.t.Helper()
	return Poll(tm.t, what+" on screen", limit, tm.Screen, cond)
}

// Display is tmux's format (say "#{alternate_on}", "#{pane_tty}") for
// the pane, spaces trimmed.
func (tm *Tmux) Display(format string) string {
	tm.t.Helper()
	return strings.TrimSpace(tm.Run("display", "-p", format))
}

// PanePID is the pid of the pane's command (the shell when the pane runs
// one).
func (tm *Tmux) PanePID() int {
	tm.t.Helper()
	pid, err := strconv.Atoi(tm.Display("#{pane_pid}"))
	if err != nil {
		tm.t.Fatal(err)
	}
	return pid
}

// Signal sends sig to the pane command's first child (the program the
// pane's shell runs).
func (tm *Tmux) Signal(sig syscall.Signal) {
	tm.t.Helper()
	if err := syscall.Kill(ChildOf(tm.t, tm.PanePID()), sig); err != nil {
		tm.t.Fatal(err)
	}
}

// ChildOf is the pid of pid's first child, read from /proc; it waits up
// to 5 s for one to appear and fails t when none does.
func ChildOf(t testing.TB, pid int) int {
	t.Helper()
	child := func() int {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		if f := strings.Fields(string(b)); len(f) > 0 {
			c, _ := strconv.Atoi(f[0])
			return c
		}
		return 0
	}
	return Poll(t, fmt.Sprintf("child of %d in /proc", pid), 5*time.Second, child, func(c int) bool { return c > 0 })
}
