package jobctl

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestTermGate walks the orderings a suspension and a quit can come in:
// a quit while the dashboard holds the terminal goes through and no
// suspension starts after it; a quit while a suspension has the terminal
// is held, and the suspension then ends the program instead of handing the
// terminal back; a stop the Suspender saw does the same; a suspension
// without a stop hands the terminal back, and quits go through again.
func TestTermGate(t *testing.T) {
	t.Run("quit, then ctrl+z", func(t *testing.T) {
		var g termGate
		if !g.quit() {
			t.Fatal("a quit with the dashboard holding the terminal was held")
		}
		if g.release() {
			t.Error("a suspension started after a quit went through")
		}
		if g.held() {
			t.Error("a quit that went through is held")
		}
	})
	t.Run("ctrl+z, quit, resume", func(t *testing.T) {
		var g termGate
		if !g.release() {
			t.Fatal("no suspension")
		}
		if g.quit() {
			t.Fatal("a quit went through while the terminal was released")
		}
		if !g.held() {
			t.Error("the quit is not held")
		}
		if g.quit() {
			t.Error("a second quit went through while released")
		}
		if !g.reclaim(false) {
			t.Error("the resume handed the terminal back with a quit held")
		}
		if g.quit() {
			t.Error("a quit went through after the resume chose to end the program")
		}
		if g.release() {
			t.Error("a suspension started with a quit held")
		}
	})
	t.Run("ctrl+z, stop signal, resume", func(t *testing.T) {
		var g termGate
		g.release()
		if !g.reclaim(true) {
			t.Error("the resume handed the terminal back with a stop pending")
		}
		if g.quit() {
			t.Error("a quit went through after the resume chose to end the program")
		}
	})
	t.Run("ctrl+z, resume, quit", func(t *testing.T) {
		var g termGate
		for range 3 {
			if !g.release() {
				t.Fatal("no suspension")
			}
			if g.reclaim(false) {
				t.Fatal("a resume with no stop ended the program")
			}
		}
		if g.held() {
			t.Error("a quit held with none asked")
		}
		if !g.quit() {
			t.Error("a quit after the resumes was held")
		}
	})
}

// TestContinueWaitsForAStopSignalSentWithIt: continued in the background,
// the process stops again only when no stop signal comes within the
// grace; one that reaches quit after SIGCONT's cont (another thread's
// handler) still ends the stop loop.
func TestContinueWaitsForAStopSignalSentWithIt(t *testing.T) {
	// A pty master not our controlling terminal: its foreground group is
	// 0, never ours, so foreground() is false as in the background.
	f, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer f.Close()
	s := &Suspender{tty: int(f.Fd()), quit: make(chan os.Signal, 1)}
	if s.foreground() {
		t.Fatal("a pty master with no session reads as our foreground")
	}
	if !s.stopAgain(10 * time.Millisecond) {
		t.Fatal("no stop signal: the background continue did not stop again")
	}
	late := time.AfterFunc(20*time.Millisecond, func() { s.quit <- syscall.SIGTERM })
	defer late.Stop()
	if s.stopAgain(10 * time.Second) {
		t.Fatal("a SIGTERM 20ms after the continue: stopped again, to wait for ever")
	}
	if sg := s.signaled.Load(); sg == nil || *sg != syscall.SIGTERM {
		t.Errorf("signaled %v, want SIGTERM", sg)
	}
}
