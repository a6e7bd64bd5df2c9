package ui

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/session"
)

// fakeSource is a Source that records Actions and answers SetWorkers and
// AddWorkers in its Snapshot. It is safe for concurrent use.
type fakeSource struct {
	mu      sync.Mutex
	snap    session.Snapshot
	actions []session.Action
	err     error // returned by Apply when set
	reads   int
}

func newFake() *fakeSource {
	s := richSnapshot()
	s.Workers = 2
	s.Paused = false
	return &fakeSource{snap: s}
}

func (f *fakeSource) Snapshot() session.Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	f.snap.Elapsed += session.Seconds(time.Millisecond)
	return f.snap
}

// Post applies a at once, like a session with nothing else queued.
func (f *fakeSource) Post(a session.Action) <-chan error {
	res := make(chan error, 1)
	res <- f.apply(a)
	return res
}

func (f *fakeSource) apply(a session.Action) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.actions = append(f.actions, a)
	if f.err != nil {
		return f.err
	}
	switch a.Kind {
	case session.SetWorkers:
		f.snap.Workers = a.N
	case session.AddWorkers:
		f.snap.Workers = max(0, f.snap.Workers+a.N)
	case session.TogglePause:
		f.snap.Paused = !f.snap.Paused
	}
	return nil
}

func (f *fakeSource) Actions() []session.Action {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.actions)
}

// keyMsg builds the KeyPressMsg a terminal sends for a key string.
func keyMsg(k string) tea.KeyPressMsg { return KeyMsg(k) }

var keyTable = []struct {
	key  string
	want session.Action
	quit bool
	ok   bool
}{
	{"+", session.Action{Kind: session.AddWorkers, N: 1}, false, true},
	{"up", session.Action{Kind: session.AddWorkers, N: 1}, false, true},
	{"-", session.Action{Kind: session.AddWorkers, N: -1}, false, true},
	{"down", session.Action{Kind: session.AddWorkers, N: -1}, false, true},
	{"0", session.Action{Kind: session.SetWorkers, N: 0}, false, true},
	{"1", session.Action{Kind: session.SetWorkers, N: 1}, false, true},
	{"2", session.Action{Kind: session.SetWorkers, N: 2}, false, true},
	{"3", session.Action{Kind: session.SetWorkers, N: 3}, false, true},
	{"4", session.Action{Kind: session.SetWorkers, N: 4}, false, true},
	{"5", session.Action{Kind: session.SetWorkers, N: 5}, false, true},
	{"6", session.Action{Kind: session.SetWorkers, N: 6}, false, true},
	{"7", session.Action{Kind: session.SetWorkers, N: 7}, false, true},
	{"8", session.Action{Kind: session.SetWorkers, N: 8}, false, true},
	{"9", session.Action{Kind: session.SetWorkers, N: 9}, false, true},
	{"[", session.Action{Kind: session.Load, N: -1}, false, true},
	{"]", session.Action{Kind: session.Load, N: 1}, false, true},
	{"tab", session.Action{Kind: session.NextScenario}, false, true},
	{"space", session.Action{Kind: session.TogglePause}, false, true},
	{"r", session.Action{Kind: session.Reset}, false, true},
	{"a", session.Action{Kind: session.AutoSize}, false, true},
	{"s", session.Action{Kind: session.Turn, Key: "s"}, false, true},
	{"S", session.Action{Kind: session.Turn, Key: "S"}, false, true},
	{"c", session.Action{Kind: session.Turn, Key: "c"}, false, true},
	{"g", session.Action{Kind: session.AddGOMAXPROCS, N: -1}, false, true},
	{"G", session.Action{Kind: session.AddGOMAXPROCS, N: 1}, false, true},
	{"=", session.Action{Kind: session.DefaultGOMAXPROCS}, false, true},
	{"p", session.Action{Kind: session.Turn, Key: "p"}, false, true},
	{"o", session.Action{Kind: session.Turn, Key: "o"}, false, true},
	{"u", session.Action{Kind: session.TogglePerTask}, false, true},
	{"y", session.Action{Kind: session.TogglePriority}, false, true},
	{"l", session.Action{Kind: session.Turn, Key: "l"}, false, true},
	{"L", session.Action{Kind: session.Turn, Key: "L"}, false, true},
	{"q", session.Action{}, true, true},
	{"ctrl+c", session.Action{}, true, true},
	{"?", session.Action{}, false, false},
	{"d", session.Action{}, false, false},
	{"e", session.Action{}, false, false},
	{"x", session.Action{}, false, false},
	{"", session.Action{}, false, false},
	{"enter", session.Action{}, false, false},
	{"z", session.Action{}, false, false},
}

func TestActionForEveryKey(t *testing.T) {
	for _, c := range keyTable {
		a, quit, ok := ActionFor(c.key)
		if a != c.want || quit != c.quit || ok != c.ok {
			t.Errorf("ActionFor(%q) = %v %v %v, want %v %v %v", c.key, a, quit, ok, c.want, c.quit, c.ok)
		}
	}
}

func TestKeysListsEveryKey(t *testing.T) {
	got := Keys()
	var want []string
	for _, c := range keyTable {
		if c.ok || c.key == "?" || c.key == "d" || c.key == "e" {
			want = append(want, c.key)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Keys() = %q, want %q", got, want)
	}
}

func TestKeyMsgStrings(t *testing.T) {
	for _, k := range Keys() {
		if got := keyMsg(k).String(); got != k {
			t.Errorf("keyMsg(%q).String() = %q", k, got)
		}
	}
}

// apply sends a key to m and runs the command it returns, as the program
// would, feeding the resulting message back.
func press(t *testing.T, m Model, k string) (Model, tea.Msg) {
	t.Helper()
	next, cmd := m.Update(keyMsg(k))
	m = next.(Model)
	if cmd == nil {
		return m, nil
	}
	msg := cmd()
	if _, isQuit := msg.(tea.QuitMsg); isQuit {
		return m, msg
	}
	next, _ = m.Update(msg)
	return next.(Model), msg
}

func TestUpdateEveryKey(t *testing.T) {
	for _, c := range keyTable {
		if c.key == "" {
			continue // no key sends an empty string
		}
		t.Run(c.key, func(t *testing.T) {
			f := newFake()
			m, msg := press(t, New(f), c.key)
			acts := f.Actions()
			switch {
			case c.quit:
				if _, ok := msg.(tea.QuitMsg); !ok {
					t.Errorf("%q gave %T, want tea.QuitMsg", c.key, msg)
				}
				if len(acts) != 0 {
					t.Errorf("quit applied %v", acts)
				}
			case c.ok:
				if len(acts) != 1 || acts[0] != c.want {
					t.Errorf("%q applied %v, want %v", c.key, acts, c.want)
				}
				if _, ok := msg.(appliedMsg); !ok {
					t.Errorf("%q gave %T, want appliedMsg", c.key, msg)
				}
				// The screen answers at once: the snapshot read after Apply is shown.
				if m.seq == 0 {
					t.Error("no snapshot taken after Apply")
				}
			default:
				if msg != nil || len(acts) != 0 {
					t.Errorf("%q: msg %v, actions %v", c.key, msg, acts)
				}
			}
		})
	}
}

func TestKeyUpdatesScreenAtOnce(t *testing.T) {
	f := newFake()
	m, _ := press(t, New(f), "4")
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "workers 4") {
		t.Errorf("screen after 4:\n%s", out)
	}
	m, _ = press(t, m, "0")
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "inline (0)") {
		t.Errorf("screen after 0:\n%s", out)
	}
}

func TestHelpToggles(t *testing.T) {
	m := New(newFake())
	m, _ = press(t, m, "?")
	if !m.view.help || !strings.Contains(ansi.Strip(m.View().Content), "this help") {
		t.Fatal("? did not open help")
	}
	m, _ = press(t, m, "?")
	if m.view.help || strings.Contains(ansi.Strip(m.View().Content), "reading the screen") {
		t.Fatal("? did not close help")
	}
}

func TestQuitReturnsTeaQuit(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		_, cmd := New(newFake()).Update(keyMsg(k))
		if cmd == nil {
			t.Fatalf("%q: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%q: not tea.Quit", k)
		}
	}
}

func TestApplyErrorShownThenCleared(t *testing.T) {
	f := newFake()
	f.err = errors.New("pool is closed")
	m, _ := press(t, New(f), "+")
	if m.view.errLine != "pool is closed" || !strings.Contains(ansi.Strip(m.View().Content), "! pool is closed") {
		t.Errorf("error not shown: %q", m.view.errLine)
	}
	f.mu.Lock()
	f.err = nil
	f.mu.Unlock()
	m, _ = press(t, m, "+")
	if m.view.errLine != "" || strings.Contains(ansi.Strip(m.View().Content), "pool is closed") {
		t.Errorf("error not cleared: %q", m.view.errLine)
	}
}

func TestWindowSizeChangesLayout(t *testing.T) {
	m := New(newFake())
	for _, sz := range [][2]int{{100, 30}, {60, 16}, {160, 48}, {30, 8}} {
		next, _ := m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		m = next.(Model)
		out := m.View().Content
		if want := trimBlanks(render(m.snap, sz[0], sz[1], m.view)); out != want {
			t.Errorf("%v: View is not the frame for the new size, trimmed", sz)
		}
		checkFits(t, render(m.snap, sz[0], sz[1], m.view), sz[0], sz[1])
		if sz[0] >= MinWidth && len(strings.Split(out, "\n")) != sz[1] {
			t.Errorf("%v: not resized", sz)
		}
	}
}

func TestViewIsAltScreen(t *testing.T) {
	if !New(newFake()).View().AltScreen {
		t.Error("AltScreen false")
	}
}

// TestInitAndSampled: Init reads a sample at once; Sampled asks for a
// read of the source's newest, which the model takes; the model has no
// timer of its own (a sample it asked nothing for is not read).
func TestInitAndSampled(t *testing.T) {
	f := newFake()
	m := New(f)
	first, ok := m.Init()().(sampleMsg)
	if !ok {
		t.Fatalf("init: %T, want sampleMsg", m.Init()())
	}
	next, cmd := m.Update(first)
	m = next.(Model)
	if m.seq == 0 || cmd != nil {
		t.Fatalf("init: seq %d, cmd %v: sample not taken, or it asked for more", m.seq, cmd)
	}
	next, cmd = m.Update(Sampled())
	if next.(Model).seq != m.seq || cmd == nil {
		t.Fatalf("Sampled: seq %d -> %d, cmd %v: want the same seq and a read", m.seq, next.(Model).seq, cmd)
	}
	got, ok := cmd().(sampleMsg)
	if !ok || got.seq <= m.seq {
		t.Fatalf("Sampled's read: %T seq %d, want a sampleMsg after %d", cmd(), got.seq, m.seq)
	}
	next, cmd = next.(Model).Update(got)
	if next.(Model).seq != got.seq || cmd != nil {
		t.Errorf("Sampled's sample: seq %d taken of %d, cmd %v", next.(Model).seq, got.seq, cmd)
	}
}

func mustUpdate(t *testing.T, m Model, msg tea.Msg) tea.Cmd {
	t.Helper()
	_, cmd := m.Update(msg)
	if cmd == nil {
		t.Fatalf("%T gave no command", msg)
	}
	return cmd
}

func TestStaleSampleDropped(t *testing.T) {
	m := New(newFake())
	newer := sampleMsg{sample{snap: session.Snapshot{Run: session.Run{Scenario: "newer"}}, seq: 5}}
	older := sampleMsg{sample{snap: session.Snapshot{Run: session.Run{Scenario: "older"}}, seq: 4}}
	next, _ := m.Update(newer)
	next, _ = next.(Model).Update(older)
	if got := next.(Model).snap.Scenario; got != "newer" {
		t.Errorf("showing %q", got)
	}
}

func TestOtherMessagesIgnored(t *testing.T) {
	m := New(newFake())
	next, cmd := m.Update(tea.KeyReleaseMsg{Code: 'q'})
	if cmd != nil || next.(Model).view.help {
		t.Error("key release acted")
	}
}

// TestKeysApplyInTheOrderPressed pins the fix for "7 3" typed in one burst
// ending at 7 workers: actions are posted in Update, in key order, before
// any Cmd runs.
func TestKeysApplyInTheOrderPressed(t *testing.T) {
	f := newFake()
	var m tea.Model = New(f)
	var cmds []tea.Cmd
	for _, k := range []string{"7", "3", "+", "0"} {
		var cmd tea.Cmd
		m, cmd = m.Update(keyMsg(k))
		cmds = append(cmds, cmd)
	}
	want := []session.Action{{Kind: session.SetWorkers, N: 7}, {Kind: session.SetWorkers, N: 3},
		{Kind: session.AddWorkers, N: 1}, {Kind: session.SetWorkers, N: 0}}
	if got := f.Actions(); !slices.Equal(got, want) {
		t.Fatalf("actions %v, want %v", got, want)
	}
	// The Cmds may then run in any order; the last state is what was typed last.
	for i := len(cmds) - 1; i >= 0; i-- {
		m, _ = m.Update(cmds[i]())
	}
	if got := f.Snapshot().Workers; got != 0 {
		t.Errorf("workers %d, want 0", got)
	}
}

// TestHelpScrollsToEveryLineAt80x24: at 80x24 the ? screen does not fit;
// down reaches its last line, up its first, and every line of it is shown
// on the way; keys other than scroll, close and quit do nothing there.
func TestHelpScrollsToEveryLineAt80x24(t *testing.T) {
	f := newFake()
	m := New(f)
	next, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m = next.(Model)
	m, _ = press(t, m, "?")
	all := helpLines(m.snap, 80)
	if len(all) <= 21 {
		t.Fatalf("help has %d lines: fits 80x24, nothing to scroll", len(all))
	}
	seen := map[string]bool{}
	for range len(all) + 5 {
		for _, l := range strings.Split(ansi.Strip(m.View().Content), "\n") {
			seen[strings.TrimRight(l, " ")] = true
		}
		m, _ = press(t, m, "down")
	}
	for _, l := range all {
		if p := strings.TrimRight(ansi.Strip(l), " "); p != "" && !seen[p] {
			t.Errorf("help line never shown: %q", p)
		}
	}
	if len(f.Actions()) != 0 {
		t.Errorf("scrolling applied %v", f.Actions())
	}
	m, _ = press(t, m, "4") // not a help key: nothing
	if !m.view.help || len(f.Actions()) != 0 {
		t.Error("4 on the help screen left it or applied")
	}
	for range len(all) {
		m, _ = press(t, m, "up")
	}
	if m.view.helpTop != 0 {
		t.Errorf("up did not reach the top: %d", m.view.helpTop)
	}
	m, _ = press(t, m, "esc")
	if m.view.help {
		t.Error("esc did not close help")
	}
}

// TestDetailToggles: d shows the latency table in place of the
// dashboard's panels, d again brings them back; it applies nothing.
func TestDetailToggles(t *testing.T) {
	f := newFake()
	m, _ := press(t, New(f), "d")
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "latency ms") || strings.Contains(out, "sizes tried") {
		t.Errorf("d did not show the detail:\n%s", out)
	}
	m, _ = press(t, m, "d")
	if out := ansi.Strip(m.View().Content); strings.Contains(out, "latency ms") || !strings.Contains(out, "sizes tried") {
		t.Errorf("d again did not bring the dashboard back:\n%s", out)
	}
	if len(f.Actions()) != 0 {
		t.Errorf("d applied %v", f.Actions())
	}
}

// TestViewFormatsAgainOnlyWhenItsInputChanged: View keeps the last frame
// for a message that changes nothing (the tick), and never shows a stale
// one: a newer sample, a resize and a view toggle each give the frame
// render makes for the new state.
func TestViewFormatsAgainOnlyWhenItsInputChanged(t *testing.T) {
	m := New(&fakeSource{})
	a := richSnapshot()
	b := richSnapshot()
	b.Scenario = "count"
	b.Elapsed += session.Seconds(time.Second) // a paused screen's next redraw
	m.take(sample{snap: a, seq: 1}, true)
	want := func(step string, m Model) {
		t.Helper()
		if got, w := m.View().Content, trimBlanks(render(m.snap, m.width, m.height, m.view)); got != w {
			t.Fatalf("%s: View is not render of the model's state", step)
		}
	}
	want("first", m)
	first := m.last.content
	next, _ := m.update(sampleMsg{sample{snap: a, seq: 1}})
	m = next.(Model)
	if m.View().Content != first || m.last.content != first {
		t.Fatal("the same sample again changed the frame")
	}
	m.take(sample{snap: b, seq: 2}, true)
	want("newer sample", m)
	if m.last.content == first {
		t.Fatal("a newer sample kept the old frame")
	}
	next, _ = m.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	want("resize", next.(Model))
	next, _ = next.(Model).update(tea.KeyPressMsg{Code: 'd', Text: "d"})
	want("detail", next.(Model))
}

// A paused screen takes a new sample once a PausedRedraw of session
// time (or a tenth less: the session's own spacing of PausedRedraw
// reads a few µs short), so 9 of 10 samples at 100ms leave the frame as it was (Bubble
// Tea then draws nothing); a key's sample is taken at once, and a
// running screen takes every sample.
func TestPausedScreenRedrawsOnceASecond(t *testing.T) {
	at := func(sec float64, paused bool, seq uint64) sample {
		var s session.Snapshot
		s.Scenario, s.Paused, s.Elapsed = "count", paused, session.Seconds(sec*float64(time.Second))
		return sample{snap: s, seq: seq}
	}
	m := New(&fakeSource{})
	next, _ := m.update(sampleMsg{at(3.0, true, 1)})
	m = next.(Model)
	for i, tc := range []struct {
		s    sample
		msg  string // "sample" or "applied"
		want uint64 // the seq shown after it
	}{
		{at(3.1, true, 2), "sample", 1},
		{at(3.8, true, 3), "sample", 1},
		{at(3.99999, true, 4), "sample", 4}, // PausedRedraw apart, a few µs short
		{at(4.1, true, 5), "applied", 5},
		{at(4.2, false, 6), "sample", 6},
		{at(4.3, false, 7), "sample", 7},
	} {
		var msg tea.Msg = sampleMsg{tc.s}
		if tc.msg == "applied" {
			msg = appliedMsg{sample: tc.s}
		}
		next, _ := m.update(msg)
		m = next.(Model)
		if m.seq != tc.want {
			t.Errorf("step %d (%s at t=%v, paused %v): shows sample %d, want %d", i, tc.msg, tc.s.snap.Elapsed, tc.s.snap.Paused, m.seq, tc.want)
		}
	}
}
