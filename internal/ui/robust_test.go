package ui

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"

	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/session"
)

// constSource always shows the same Snapshot: what changes on screen is
// then only what the model itself does. panicSnapshot and panicPost make
// the reads and the posts panic.
type constSource struct {
	snap          session.Snapshot
	reads         atomic.Int64 // Snapshot calls: one a sample the program handled
	panicSnapshot atomic.Bool
	panicPost     atomic.Bool
}

func (c *constSource) Snapshot() session.Snapshot {
	c.reads.Add(1)
	if c.panicSnapshot.Load() {
		panic("snapshot read failed")
	}
	return c.snap
}

// waitReads waits until the program has read n more snapshots (handled n
// more samples) than when it was called.
func (c *constSource) waitReads(t *testing.T, n int64) {
	t.Helper()
	from := c.reads.Load()
	testkit.WaitFor(t, fmt.Sprintf("%d more samples handled", n), 0, func() bool { return c.reads.Load() >= from+n })
}

func (c *constSource) Post(session.Action) <-chan error {
	if c.panicPost.Load() {
		panic("post failed")
	}
	res := make(chan error, 1)
	res <- nil
	return res
}

// countingWriter counts the bytes the program writes, then passes them on.
type countingWriter struct {
	w io.Writer
	n atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return c.w.Write(p)
}

// startProgram runs a model over src on an x/vt emulator of w x h and returns the emulator, the byte counter and a function
// that stops the program and waits for it.
func startProgram(t *testing.T, src Source, w, h int) (*vt.SafeEmulator, *countingWriter, *tea.Program, func() error) {
	t.Helper()
	emu := vt.NewSafeEmulator(w, h)
	out := &countingWriter{w: crlf{emu}}
	p := tea.NewProgram(New(src),
		tea.WithInput(emu),
		tea.WithOutput(out),
		tea.WithWindowSize(w, h),
		tea.WithColorProfile(colorprofile.Ascii),
		tea.WithoutSignals(),
	)
	unfeed := feedSamples(p, 50*time.Millisecond)
	var runErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, runErr = p.Run()
	}()
	var once sync.Once
	stop := func() error {
		once.Do(func() {
			unfeed()
			p.Kill()
			<-done
		})
		return runErr
	}
	t.Cleanup(func() { stop() })
	return emu, out, p, stop
}

// screenLines is the emulator's screen, plain, each line's trailing
// spaces trimmed.
func screenLines(emu *vt.SafeEmulator) []string {
	lines := strings.Split(ansi.Strip(emu.Render()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// TestResizeStormLeavesNoStaleText resizes the virtual screen 100x30 ->
// 20x5 -> 1x1 -> 120x40 -> 80x24 within a second. The too-small notice
// shows at 20x5, and at the end the screen is exactly a fresh 80x24
// render: no line wider than 80, no text left from an earlier size.
func TestResizeStormLeavesNoStaleText(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a whole program")
	}
	src := &constSource{snap: richSnapshot()}
	emu, _, p, _ := startProgram(t, src, 100, 30)
	waitScreen(t, emu, "the dashboard at 100x30", func(s string) bool { return strings.Contains(s, "sizes tried") })

	start := time.Now()
	for _, sz := range [][2]int{{20, 5}, {1, 1}, {120, 40}, {80, 24}} {
		emu.Resize(sz[0], sz[1])
		p.Send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		if sz[0] == 20 {
			waitScreen(t, emu, "the too-small notice", func(s string) bool { return strings.Contains(s, "offtop needs") })
		}
		src.waitReads(t, 2) // a frame or two at this size
	}
	if d := time.Since(start); d > time.Second {
		t.Logf("storm took %v (a loaded machine); the check stands", d)
	}

	want := strings.Split(ansi.Strip(Render(src.snap, 80, 24, false)), "\n")
	for i, l := range want {
		want[i] = strings.TrimRight(l, " ")
	}
	got := testkit.Poll(t, "a fresh 80x24 render", 0, func() []string { return screenLines(emu) }, func(got []string) bool {
		return len(got) == 24 && strings.Join(got, "\n") == strings.Join(want, "\n")
	})
	for i, l := range got {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("line %d is %d wide: %q", i, w, l)
		}
		if i >= len(want) || l != want[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i, l, want[min(i, len(want)-1)])
		}
	}
	if len(got) != 24 {
		t.Errorf("%d lines, want 24", len(got))
	}
}

// TestSmallWindowRecovers: a window below MinWidth x MinHeight shows the
// notice, and the dashboard comes back when it grows.
func TestSmallWindowRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a whole program")
	}
	src := &constSource{snap: richSnapshot()}
	emu, _, p, _ := startProgram(t, src, 59, 15)
	waitScreen(t, emu, "the notice", func(s string) bool { return strings.Contains(s, "offtop needs 60x16 (now 59x15)") })
	emu.Resize(60, 16)
	p.Send(tea.WindowSizeMsg{Width: 60, Height: 16})
	scr := waitScreen(t, emu, "the dashboard", func(s string) bool { return strings.Contains(s, "sizes tried") })
	if strings.Contains(scr, "offtop needs") {
		t.Errorf("notice left on screen:\n%s", scr)
	}
}

// TestIdleScreenWritesNothing: with nothing changing, the program writes
// no bytes between samples (no idle animation), so a recording of an idle
// screen stays small. The model still samples every 50ms here.
func TestIdleScreenWritesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a whole program")
	}
	src := &constSource{snap: richSnapshot()}
	emu, out, _, _ := startProgram(t, src, 80, 24)
	waitScreen(t, emu, "the dashboard", func(s string) bool { return strings.Contains(s, "sizes tried") })
	src.waitReads(t, 6) // let the first frames and queries settle
	before := out.n.Load()
	src.waitReads(t, 20)
	if n := out.n.Load() - before; n != 0 {
		t.Errorf("%d bytes written over 20 samples of an unchanged screen", n)
	}
}

// reports sets a crash handler for one test that keeps the reports and
// calls then after each.
func reports(t *testing.T, then func()) func() []crash.Report {
	var (
		mu   sync.Mutex
		reps []crash.Report
	)
	t.Cleanup(crash.SetHandler(func(r crash.Report) {
		mu.Lock()
		reps = append(reps, r)
		mu.Unlock()
		if then != nil {
			then()
		}
	}))
	return func() []crash.Report {
		mu.Lock()
		defer mu.Unlock()
		return append([]crash.Report(nil), reps...)
	}
}

// TestPanicInUpdateGoesToCrashHandler: a panic in Update (Post runs there)
// is recovered into the crash handler; the model comes back unchanged.
func TestPanicInUpdateGoesToCrashHandler(t *testing.T) {
	get := reports(t, nil)
	src := &constSource{snap: richSnapshot()}
	src.panicPost.Store(true)
	m := New(src)
	next, cmd := m.Update(keyMsg("4"))
	if cmd != nil {
		t.Error("a command after a panic")
	}
	if _, ok := next.(Model); !ok {
		t.Fatalf("Update returned %T after a panic", next)
	}
	reps := get()
	if len(reps) != 1 || !strings.Contains(reps[0].Error(), "post failed") || !strings.Contains(reps[0].Func, "Post") {
		t.Fatalf("reports %v", reps)
	}
}

// TestPanicInCmdGoesToCrashHandler: a panic in a Cmd (the read Sampled
// asks for) goes to the crash handler, not to Bubble Tea's catcher (which
// prints a stack over the screen); the program stops when the handler
// kills it and writes no "Caught panic".
func TestPanicInCmdGoesToCrashHandler(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a whole program")
	}
	src := &constSource{snap: richSnapshot()}
	var p atomic.Pointer[tea.Program]
	get := reports(t, func() {
		if pp := p.Load(); pp != nil {
			go pp.Kill()
		}
	})
	emu, _, prog, stop := startProgram(t, src, 80, 24)
	p.Store(prog)
	waitScreen(t, emu, "the dashboard", func(s string) bool { return strings.Contains(s, "sizes tried") })
	src.panicSnapshot.Store(true) // the next sample's read panics
	testkit.WaitFor(t, "the crash report", 0, func() bool { return len(get()) > 0 })
	stop()
	reps := get()
	if len(reps) == 0 || !strings.Contains(reps[0].Error(), "snapshot read failed") {
		t.Fatalf("reports %v", reps)
	}
	if strings.Contains(ansi.Strip(emu.Render()), "Caught panic") {
		t.Error("Bubble Tea's panic text on screen")
	}
}
