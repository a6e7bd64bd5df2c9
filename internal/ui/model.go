// Package ui is offtop's terminal dashboard: a Bubble Tea v2 model that
// renders session Snapshots and turns keys into session Actions.
//
// The model talks to the session only through Source. Sampling and applying
// run in tea.Cmds (never in Update or View), and View only formats the last
// Snapshot, so nothing mutable is shared with View.
package ui

import (
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/session"
)

// Source is the part of session.Source the model reads and drives: the
// in-process session or a remote one (offtop attach), the model cannot
// tell. Post must return at once and apply actions in the order posted;
// the channel gets the action's result when it has been applied.
type Source interface {
	Snapshot() session.Snapshot
	Post(session.Action) <-chan error
}

// FPS is the frame rate the program's renderer runs at (tea.WithFPS): how
// often it wakes to compare the last View with what is on screen. The
// screen changes once a sample (4 times a second at 250ms) or on a key,
// so 10 frames a second is enough: a key is drawn within 100 ms, the
// limit under which a response feels immediate (Nielsen, Usability
// Engineering, 1993, ch. 5). Each frame more is a wake-up watching an idle
// process: Bubble Tea's default of 60 costs 50 more a second, 20 cost
// ~0.5 ms of CPU a second more than 10 here (bench/observer, TUI paused,
// side by side).
const FPS = 10

// Default screen size until the first tea.WindowSizeMsg.
const (
	defaultWidth  = 80
	defaultHeight = 24
)

// Messages. Each Cmd returns one of these small named types.
type (
	// sampledMsg says the source has a new sample (Sampled); the model
	// reads it in a Cmd.
	sampledMsg struct{}
	// sampleMsg carries a Snapshot read in a Cmd.
	sampleMsg struct{ sample }
	// appliedMsg is the outcome of Apply and the Snapshot read right after.
	appliedMsg struct {
		sample
		action session.Action
		err    error
	}
)

// sample is a Snapshot with the order it was read in, so a slow read that
// lands after a newer one is dropped instead of flicking the screen back.
type sample struct {
	snap session.Snapshot
	seq  uint64
}

// fetcher reads Snapshots one at a time and numbers them. It is used only
// from Cmds.
type fetcher struct {
	src Source
	numbered[session.Snapshot]
}

func (f *fetcher) read() sample {
	s, seq := f.numbered.read(f.src.Snapshot)
	return sample{snap: s, seq: seq}
}

// numbered numbers what it reads; mu guards seq and serializes the reads
// so seq follows time.
type numbered[T any] struct {
	mu  sync.Mutex
	seq uint64
}

func (n *numbered[T]) read(get func() T) (T, uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	v := get()
	n.seq++
	return v, n.seq
}

// Model is the Bubble Tea model. Its zero value is not usable: call New.
type Model struct {
	f *fetcher

	snap   session.Snapshot
	seq    uint64 // seq of snap; 0 before the first sample
	width  int
	height int
	view   viewState // help, its scroll, detail, the last Apply error (until one succeeds)
	// last is the frame View formatted last, shared by the model's
	// copies: Bubble Tea calls View after every message, a Sampled one too,
	// which changes nothing on screen.
	last *frame
}

// frame is one View's inputs and the content it formatted from them.
// Only the program's goroutine calls View, so it is not locked.
type frame struct {
	seq           uint64
	width, height int
	view          viewState
	content       string
}

// New returns a model reading src: once at Init, then each time it is
// sent Sampled, and after each Action it posts. It has no timer of its
// own: the program that runs it sends Sampled when the source has taken a
// sample (cmd/offtop does, from the one reader of Samples), so each sample
// is drawn once, right when it is taken, not up to an interval late by a
// second timer out of phase with the sampler's (whose wake-up, paused at
// 250ms, cost ~0.3 ms of CPU a second more: bench/observer).
func New(src Source) Model {
	return Model{
		f:      &fetcher{src: src},
		width:  defaultWidth,
		height: defaultHeight,
		last:   &frame{},
	}
}

// Sampled is the message that tells the model its source has a new
// sample; the model reads it. Send it with tea.Program.Send.
func Sampled() tea.Msg { return sampledMsg{} }

// Init reads a first sample at once.
func (m Model) Init() tea.Cmd {
	return safe(m.sampleCmd())
}

func (m Model) sampleCmd() tea.Cmd {
	f := m.f
	return func() tea.Msg { return sampleMsg{f.read()} }
}

// applyCmd posts a in Update, so actions keep the order of the keys
// (Cmds run concurrently: applying inside one let "7 3" typed fast end at
// 7), and returns a Cmd that waits for the result and reads a fresh
// Snapshot at once, so the screen answers a key now, not at the next sample.
func (m Model) applyCmd(a session.Action) tea.Cmd {
	f := m.f
	res := f.src.Post(a)
	return func() tea.Msg {
		err := <-res
		return appliedMsg{sample: f.read(), action: a, err: err}
	}
}

// PausedRedraw is how often the screen of a paused scenario takes a new
// sample: once a second, as htop and top redraw, where it would
// otherwise draw every --interval. Paused, what changes is the clock and
// the probe's figures, and each changed frame costs Bubble Tea a parse
// of the whole screen (~0.3 ms at 100x30: BENCHMARKS.md); a key's effect
// still shows at once. An attached program is never held: its pool may
// idle while its endpoints serve.
const PausedRedraw = time.Second

// pausedHold is the least session time between two paused frames: under
// PausedRedraw by a tenth, so that samples the session takes PausedRedraw
// apart (session.Config.PausedInterval), a few µs short of it by their
// clock reads, are each drawn, not every other one.
const pausedHold = PausedRedraw * 9 / 10

// take keeps s if it is newer than the model's sample, unless settle and
// both are of an own scenario paused and the model's is less than
// pausedHold of session time older. With no route named (no --route,
// no --load) it keeps featuring the busiest route it first saw, while the
// program has it: only e moves it.
func (m *Model) take(s sample, settle bool) {
	held := settle && m.snap.Paused && s.snap.Paused && m.snap.Remote == "" && s.snap.Remote == "" &&
		time.Duration(s.snap.Elapsed-m.snap.Elapsed) < pausedHold
	if s.seq > m.seq && !held {
		m.snap, m.seq = s.snap, s.seq
	}
	if m.snap.Route != "" || m.snap.LoadClient != nil {
		return // named: the Snapshot's, or the load's first target
	}
	if _, ok := routeOf(m.snap.Endpoints, m.view.route); m.view.routeAuto && !ok {
		m.view.route, m.view.routeAuto = "", false // gone (another program): pick again
	}
	if m.view.route == "" {
		if r := featuredRoute(m.snap); r != "" {
			m.view.route, m.view.routeAuto = r, true
		}
	}
}

// Update handles ticks, samples, keys and resizes. A panic in it, or in a
// Cmd it returns, goes to crash's handler (see safe.go); the model is then
// returned unchanged.
func (m Model) Update(msg tea.Msg) (next tea.Model, cmd tea.Cmd) {
	next = m
	defer crash.Recover()
	next, cmd = m.update(msg)
	return next, safe(cmd)
}

func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case sampledMsg:
		return m, m.sampleCmd()
	case sampleMsg:
		m.take(msg.sample, true)
		return m, nil
	case appliedMsg:
		m.take(msg.sample, false)
		if msg.err != nil {
			m.view.errLine = msg.err.Error()
		} else {
			m.view.errLine = ""
		}
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case tea.KeyPressMsg:
		k := msg.String()
		if m.view.help { // the ? screen is modal: scroll, close, quit
			d, _ := DefaultKeyMap.lookup(k, true)
			switch d.use {
			case useCloseHelp:
				m.view.help = false
			case useScrollUp:
				m.view.helpTop = helpScroll(m.snap, m.width, m.height, m.view.helpTop, -m.scrollStep(msg))
			case useScrollDown:
				m.view.helpTop = helpScroll(m.snap, m.width, m.height, m.view.helpTop, m.scrollStep(msg))
			case useQuit:
				return m, tea.Quit
			}
			return m, nil
		}
		d, ok := DefaultKeyMap.lookup(k, false)
		if m.snap.Search.Running && !(ok && d.use == useQuit) {
			// Any key cancels the size search, and only that.
			return m, m.applyCmd(session.Action{Kind: session.CancelAutoSize})
		}
		switch {
		case !ok:
		case d.use == useHelp:
			m.view.help, m.view.helpTop = true, 0
		case d.use == useDetail:
			m.view.detail = !m.view.detail
		case d.use == useRoute:
			m.view.route, m.view.routeAuto = nextRoute(m.snap, m.view.route), false
		case d.use == useQuit:
			return m, tea.Quit
		case d.use == useAction:
			return m, m.applyCmd(d.act(k))
		}
		return m, nil
	}
	return m, nil
}

// scrollStep is a page for pgup, pgdown and space, else a line.
func (m Model) scrollStep(k tea.KeyPressMsg) int {
	switch k.String() {
	case "pgup", "pgdown", "space":
		return max(m.height-4, 1)
	}
	return 1
}

// View formats the last Snapshot for the current size in the alt screen.
// A panic in it goes to crash's handler and leaves the screen empty (still
// the alt screen) until the handler stops the program.
func (m Model) View() (v tea.View) {
	v.AltScreen = true
	defer crash.Recover()
	v.SetContent(m.content())
	return v
}

// content is the screen for the model's state, formatted again only when
// the sample, the size or the view state differ from the last frame's
// (render is pure, so an equal input gives an equal frame).
func (m Model) content() string {
	f := frame{seq: m.seq, width: m.width, height: m.height, view: m.view}
	if l := m.last; l != nil && l.content != "" && l.seq == f.seq && l.width == f.width && l.height == f.height && l.view == f.view {
		return l.content
	}
	snap := m.snap
	if m.view.route != "" {
		snap.Route = m.view.route
	}
	f.content = trimBlanks(render(snap, m.width, m.height, m.view))
	if m.last != nil {
		*m.last = f
	}
	return f.content
}

// trimBlanks is frame without the blanks that end its lines. Bubble Tea's
// renderer clears its screen buffer before it draws a frame, so a blank at
// the end of a line costs it a cell to parse and draw for nothing: a fifth
// of the cells of the dashboard at 100x30, where drawing a changed frame
// is most of what the TUI costs beyond the engine (BENCHMARKS.md). Render
// pads after a line's last escape sequence (fit), so no trimmed blank is
// inside a style: TestTrimmedFrameDrawsTheSame.
func trimBlanks(frame string) string {
	var b strings.Builder
	b.Grow(len(frame))
	for i, l := range strings.Split(frame, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimRight(l, " "))
	}
	return b.String()
}
