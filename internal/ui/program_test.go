package ui

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"

	"github.com/offtop/offtop/internal/session"
)

// crlf turns "\n" into "\r\n" on the way to the emulator: with no TTY there
// is no line discipline to do it.
type crlf struct{ w io.Writer }

// x/vt v0.1.0 panics (index out of range in ultraviolet's
// Buffer.InsertLineArea) on a reverse index past its last row, which a
// frame drawn for the size before emu.Resize can carry when it lands after
// it; a real terminal clips it. Such a frame is dropped: the program
// repaints the whole screen after a resize, and the tests judge that one.
func (c crlf) Write(p []byte) (n int, err error) {
	defer func() {
		if recover() != nil {
			n, err = len(p), nil
		}
	}()
	if _, err := c.w.Write(bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// feedSamples sends p Sampled every period, as cmd/offtop does on each
// sample the source takes, until the returned stop is called.
func feedSamples(p *tea.Program, period time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.Send(Sampled())
			}
		}
	}()
	return func() { close(done) }
}

// waitScreen polls the emulator's screen until ok holds or the deadline.
func waitScreen(t *testing.T, emu *vt.SafeEmulator, what string, ok func(string) bool) string {
	t.Helper()
	return testkit.Poll(t, what+" on screen", 0, func() string { return ansi.Strip(emu.Render()) }, ok)
}

// TestProgramOnVirtualScreen runs the whole tea.Program at 80x24 on an x/vt
// emulator. The emulator is never closed: closing it
// races with the program's last writes.
func TestProgramOnVirtualScreen(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a whole program")
	}
	f := newFake()
	emu := vt.NewSafeEmulator(80, 24)
	p := tea.NewProgram(New(f),
		tea.WithInput(emu),
		tea.WithOutput(crlf{emu}),
		tea.WithWindowSize(80, 24),
		tea.WithColorProfile(colorprofile.Ascii),
		tea.WithoutSignals(),
	)
	defer feedSamples(p, 50*time.Millisecond)()
	var runErr error
	done := make(chan struct{}) // closed when Run returns
	go func() {
		defer close(done)
		_, runErr = p.Run()
	}()
	defer func() {
		select {
		case <-done:
		default: // a check failed before q: stop the program
			p.Kill()
			<-done
		}
	}()

	waitScreen(t, emu, "the header", func(s string) bool {
		return strings.Contains(s, "offtop") && strings.Contains(s, "workers 2") && strings.Contains(s, "GOMAXPROCS 2")
	})

	emu.SendText("4")
	waitScreen(t, emu, "workers 4", func(s string) bool { return strings.Contains(s, "workers 4") })
	if acts := f.Actions(); len(acts) != 1 || acts[0] != (session.Action{Kind: session.SetWorkers, N: 4}) {
		t.Errorf("actions after 4: %v", acts)
	}

	emu.SendText("?")
	waitScreen(t, emu, "help", func(s string) bool { return strings.Contains(s, "this help") })
	emu.SendText("?")
	scr := waitScreen(t, emu, "dashboard", func(s string) bool { return strings.Contains(s, "sizes tried") })
	for i, l := range strings.Split(scr, "\n") {
		if ansi.StringWidth(l) > 80 || i >= 24 {
			t.Errorf("screen line %d overflows: %q", i, l)
		}
	}

	emu.SendText("q")
	select {
	case <-done:
		if runErr != nil {
			t.Errorf("Run: %v", runErr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("program did not end after q")
	}
}
