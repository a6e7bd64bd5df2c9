package main

import (
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"
)

// TestOutsideStopInTmux: the dashboard in an interactive bash (job
// control) stopped from outside with SIGSTOP, which no handler sees:
// bash takes the terminal back in its own modes. Continued by fg, the
// dashboard takes the terminal again (raw mode, the alternate screen,
// redrawn whole: nothing of the shell's left on it); continued by kill
// -CONT while bash holds the terminal, offtop stops itself again and
// draws nothing over the prompt (the screen stays as bash left it), and
// fg then brings it back the same way. In
// each, q exits 0 with the summary, and the terminal is sane after. It
// drew over the prompt in the background, stopped on tty input, and took
// q line-buffered (the terminal in bash's modes) after fg.
func TestOutsideStopInTmux(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	for _, c := range []struct {
		name string
		cont bool // kill -CONT before fg
	}{{"fg", false}, {"kill -CONT, then fg", true}} {
		t.Run(c.name, func(t *testing.T) {
			tm, bin, pane := jobShell(t)
			altOn := func() bool { return tm.Display("#{alternate_on}") == "1" }
			dashboard := func(s string) bool { return strings.Contains(s, "sizes tried") && strings.Contains(s, "workers 1") }
			tty := tm.Display("#{pane_tty}")
			tm.Run("send-keys", "clear; "+bin+" --scenario count --workers 1", "Enter")
			tm.WaitScreen("dashboard", 10*time.Second, func(s string) bool { return altOn() && dashboard(s) })
			pid := testkit.ChildOf(t, pane)

			if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			stopped := tm.WaitScreen("bash's Stopped and its prompt", 5*time.Second, func(s string) bool {
				return stoppedPrompt.MatchString(s)
			})
			if c.cont {
				// Stopped past several sample intervals, as a debugger or
				// docker pause stops it: the sample due is taken at once
				// when continued, and Bubble Tea would draw it.
				time.Sleep(1500 * time.Millisecond)
				if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
					t.Fatal(err)
				}
				testkit.WaitFor(t, "offtop stopped again in the background", 5*time.Second, func() bool { return procState(pid) == "T" })
				// Stopped, it draws no more; tmux may show what it drew
				// before a moment later.
				for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
					if now := tm.Screen(); now != stopped {
						t.Fatalf("drawn over the shell from the background:\n%s\nbefore SIGCONT:\n%s", now, stopped)
					}
				}
			}
			tm.Run("send-keys", "fg; echo EXIT=$?; stty -a", "Enter") // fg's status is the job's
			s := tm.WaitScreen("the dashboard back after fg", 10*time.Second, func(s string) bool {
				return altOn() && dashboard(s) && !strings.Contains(s, "Stopped")
			})
			if st := procState(pid); st == "T" {
				t.Fatalf("offtop stopped after fg:\n%s", s)
			}
			// Raw mode within a bound, not at the first frame seen: across a
			// stop from outside the renderer runs on, so after fg it can draw
			// before the resume has released the terminal and taken it back
			// (and a resume whose first frame is late takes it twice).
			testkit.Poll(t, "the terminal in raw mode after fg (q would wait for Enter)", 5*time.Second,
				func() map[string]bool { return sttyFlags(t, tty) },
				func(f map[string]bool) bool { return f["-icanon"] && f["-echo"] })
			tm.Run("send-keys", "q")
			s = tm.WaitScreen("exit and stty", 10*time.Second, func(s string) bool { return exitLine(s) != "" && strings.Contains(s, "icanon") })
			if got := exitLine(s); got != "EXIT=0" {
				t.Errorf("%s, want EXIT=0:\n%s", got, s)
			}
			if altOn() {
				t.Errorf("alternate screen on after the exit:\n%s", s)
			}
			for _, want := range []string{"offtop ran", "continued 1x after a stop from outside"} {
				if !strings.Contains(s, want) {
					t.Errorf("no %q after q:\n%s", want, s)
				}
			}
			if !wordRe("echo").MatchString(s) || !wordRe("icanon").MatchString(s) {
				t.Errorf("stty -a after the exit lacks echo or icanon:\n%s", s)
			}
		})
	}
}

// sttyFlags are the flags stty -a gives for tty, as a set ("-echo",
// "icanon", ...).
func sttyFlags(t *testing.T, tty string) map[string]bool {
	t.Helper()
	out, err := exec.Command("stty", "-a", "-F", tty).CombinedOutput()
	if err != nil {
		t.Fatalf("stty: %v\n%s", err, out)
	}
	m := map[string]bool{}
	for _, f := range strings.Fields(string(out)) {
		m[f] = true
	}
	return m
}

// stoppedPrompt matches bash's report of a stopped job and the prompt
// it prints after it.
var stoppedPrompt = regexp.MustCompile(`(?s)Stopped.*bash-[0-9.]+[#$]`)
