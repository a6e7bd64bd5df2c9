package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
)

// KeyMap is offtop's one key map. It drives the footer (ShortHelp), the ?
// screen (FullHelp), the model's Update and ActionFor, which --keys scripts
// use too, so a key means the same thing everywhere.
//
// Key strings are Bubble Tea v2's KeyPressMsg.String(): "+", "up", "space",
// "tab", "ctrl+c", "0".."9" and so on.
type KeyMap struct {
	Add          key.Binding // one more worker
	Remove       key.Binding // one fewer worker
	Set          key.Binding // 0-9: set the pool size (0 = inline on the Loop)
	LoadDown     key.Binding
	LoadUp       key.Binding
	Next         key.Binding // next scenario
	Pause        key.Binding // pause or resume the scenario's load
	Reset        key.Binding // reset the since-reset figures
	PerTask      key.Binding // a goroutine per task instead of the pool
	Priority     key.Binding // priority workers on or off (pool.SetPriority)
	ProcsDown    key.Binding // GOMAXPROCS one lower: emulate a smaller machine
	ProcsUp      key.Binding // GOMAXPROCS one higher, up to NumCPU
	ProcsRuntime key.Binding // give GOMAXPROCS back to the runtime
	Auto         key.Binding // size it for me: the size search (any key cancels it)
	Detail       key.Binding // toggle the latency detail (UI only, not an Action)
	Help         key.Binding // toggle the ? screen (UI only, not an Action)
	Quit         key.Binding
	// Knobs are the scenarios' own keys (scenarios.AllKnobs), one binding
	// each; they become session.Turn actions.
	Knobs []key.Binding
	// Suspend is listed in help only: the program's filter in cmd/offtop
	// takes ctrl+z before the model sees it (suspend.go).
	Suspend key.Binding
	// On the ? screen only: scroll it, close it.
	HelpUp, HelpDown, HelpClose key.Binding
}

// DefaultKeyMap is the key map offtop uses.
var DefaultKeyMap = KeyMap{
	Add:          key.NewBinding(key.WithKeys("+", "up"), key.WithHelp("+/↑", "add worker")),
	Remove:       key.NewBinding(key.WithKeys("-", "down"), key.WithHelp("-/↓", "remove worker")),
	Set:          key.NewBinding(key.WithKeys("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("0-9", "set workers (0 = inline)")),
	LoadDown:     key.NewBinding(key.WithKeys("["), key.WithHelp("[", "less load")),
	LoadUp:       key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "more load")),
	Next:         key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next scenario")),
	Pause:        key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "pause load")),
	Reset:        key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reset figures")),
	PerTask:      key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "goroutine per task on/off")),
	Priority:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "priority workers on/off")),
	ProcsDown:    key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "GOMAXPROCS down")),
	ProcsUp:      key.NewBinding(key.WithKeys("G"), key.WithHelp("G", "GOMAXPROCS up")),
	ProcsRuntime: key.NewBinding(key.WithKeys("="), key.WithHelp("=", "GOMAXPROCS to the runtime")),
	Auto:         key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "find the size (any key cancels)")),
	Detail:       key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "latency detail on/off")),
	Help:         key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "this help")),
	Quit:         key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q/ctrl+c", "quit")),
	Knobs:        knobBindings(),
	Suspend:      key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "suspend (fg resumes)")),
	HelpUp:       key.NewBinding(key.WithKeys("up", "k", "pgup"), key.WithHelp("↑/k", "scroll up")),
	HelpDown:     key.NewBinding(key.WithKeys("down", "j", "pgdown", "space"), key.WithHelp("↓/j", "scroll down")),
	HelpClose:    key.NewBinding(key.WithKeys("?", "esc"), key.WithHelp("?/esc", "close help")),
}

// knobsHelp is bindings as few help lines: a pair bound to one
// description on a line of its own ("l/L  Loops", "s/S  payload size"),
// every single key on one shared line ("u/c/o/p  goroutine per task
// on/off, CPU per call, payload kind, split"), so the ? screen keeps its
// height; every key's own line is in offtop --help.
func knobsHelp(bs []key.Binding) []key.Binding {
	var descs []string
	keys := map[string][]string{}
	for _, b := range bs {
		d := b.Help().Desc
		if _, ok := keys[d]; !ok {
			descs = append(descs, d)
		}
		keys[d] = append(keys[d], b.Keys()...)
	}
	var singles, singleDescs []string
	var pairs []key.Binding
	for _, d := range descs {
		ks := keys[d]
		if len(ks) == 1 {
			singles, singleDescs = append(singles, ks[0]), append(singleDescs, d)
			continue
		}
		slices.SortFunc(ks, func(a, b string) int { // l before L
			if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
				return c
			}
			return strings.Compare(b, a)
		})
		pairs = append(pairs, key.NewBinding(key.WithKeys(ks...), key.WithHelp(strings.Join(ks, "/"), d)))
	}
	if len(singles) == 0 {
		return pairs
	}
	one := key.NewBinding(key.WithKeys(singles...), key.WithHelp(strings.Join(singles, "/"), strings.Join(singleDescs, ", ")))
	return append([]key.Binding{one}, pairs...)
}

// knobBindings makes one binding per scenario knob.
func knobBindings() []key.Binding {
	var bs []key.Binding
	for _, k := range scenarios.AllKnobs() {
		bs = append(bs, key.NewBinding(key.WithKeys(k.Key), key.WithHelp(k.Key, k.Help)))
	}
	return bs
}

// ShortHelp is the footer, in the order shown. Its entries are the map's own
// bindings with shorter help text; +/- and [/] share one entry each.
func (k KeyMap) ShortHelp() []key.Binding {
	short := func(desc, help string, bs ...key.Binding) key.Binding {
		var keys []string
		for _, b := range bs {
			keys = append(keys, b.Keys()...)
		}
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(desc, help))
	}
	return []key.Binding{
		short("?", "help", k.Help),
		short("q", "quit", k.Quit),
		short("+/-", "workers", k.Add, k.Remove),
		short("0-9", "size", k.Set),
		short("a", "auto", k.Auto),
		short("[/]", "load", k.LoadDown, k.LoadUp),
		short("tab", "next", k.Next),
		short("d", "detail", k.Detail),
		short("r", "reset", k.Reset),
		short("space", "pause", k.Pause),
	}
}

// AttachedShortHelp is the footer attached to a program (offtop attach):
// the keys its agent takes (session.ProgramActions), no scenario's.
func (k KeyMap) AttachedShortHelp() []key.Binding {
	all := k.ShortHelp()
	keep := []key.Binding{}
	for _, b := range all {
		switch b.Help().Key {
		case "[/]", "tab", "space":
			continue
		}
		keep = append(keep, b)
	}
	procs := key.NewBinding(key.WithKeys(append(k.ProcsDown.Keys(), k.ProcsUp.Keys()...)...), key.WithHelp("g/G", "GOMAXPROCS"))
	return append(keep, procs)
}

// HelpShortHelp is the footer on the ? screen.
func (k KeyMap) HelpShortHelp() []key.Binding {
	return []key.Binding{k.HelpUp, k.HelpDown, k.HelpClose, k.Quit}
}

// FullHelp is the ? screen: one column per group.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		// the pool's size and the Ps it runs on, one group
		{k.Add, k.Remove, k.Set, k.Auto, k.ProcsDown, k.ProcsUp, k.ProcsRuntime, k.Priority},
		// the load and the scenarios' own knobs, one group
		append([]key.Binding{k.LoadDown, k.LoadUp, k.Pause, k.Next},
			knobsHelp(append([]key.Binding{k.PerTask}, k.Knobs...))...),
		{k.Reset, k.Detail, k.Help, k.Quit, k.Suspend},
		{k.HelpUp, k.HelpDown, k.HelpClose},
	}
}

// all lists every binding once.
func (k KeyMap) all() []key.Binding {
	return append([]key.Binding{k.Add, k.Remove, k.Set, k.Auto, k.LoadDown, k.LoadUp, k.Next, k.Pause, k.Reset,
		k.PerTask, k.Priority, k.ProcsDown, k.ProcsUp, k.ProcsRuntime, k.Detail, k.Help, k.Quit}, k.Knobs...)
}

// Keys lists every key string the key map accepts, for validating
// --keys scripts. "?" is among them although it maps to no Action.
func Keys() []string {
	var out []string
	for _, b := range DefaultKeyMap.all() {
		out = append(out, b.Keys()...)
	}
	return out
}

// keyName is a key string as key.Matches takes it.
type keyName string

func (k keyName) String() string { return string(k) }

// ActionFor maps a key string to what it does. quit is true for q and
// ctrl+c; ok is false for a key that is not bound to an Action or to quit
// ("?" toggles the help screen, which is the UI's own business, so it too
// gives ok false). ActionFor is pure.
func ActionFor(k string) (a session.Action, quit bool, ok bool) {
	return actionFor(keyName(k))
}

// actionFor is ActionFor for a key press or a key string.
func actionFor(k fmt.Stringer) (a session.Action, quit bool, ok bool) {
	switch {
	case key.Matches(k, DefaultKeyMap.Quit):
		return session.Action{}, true, true
	case key.Matches(k, DefaultKeyMap.Add):
		return session.Action{Kind: session.AddWorkers, N: 1}, false, true
	case key.Matches(k, DefaultKeyMap.Remove):
		return session.Action{Kind: session.AddWorkers, N: -1}, false, true
	case key.Matches(k, DefaultKeyMap.Set):
		return session.Action{Kind: session.SetWorkers, N: int(k.String()[0] - '0')}, false, true
	case key.Matches(k, DefaultKeyMap.LoadDown):
		return session.Action{Kind: session.Load, N: -1}, false, true
	case key.Matches(k, DefaultKeyMap.LoadUp):
		return session.Action{Kind: session.Load, N: 1}, false, true
	case key.Matches(k, DefaultKeyMap.Next):
		return session.Action{Kind: session.NextScenario}, false, true
	case key.Matches(k, DefaultKeyMap.Pause):
		return session.Action{Kind: session.TogglePause}, false, true
	case key.Matches(k, DefaultKeyMap.Reset):
		return session.Action{Kind: session.Reset}, false, true
	case key.Matches(k, DefaultKeyMap.PerTask):
		return session.Action{Kind: session.TogglePerTask}, false, true
	case key.Matches(k, DefaultKeyMap.Priority):
		return session.Action{Kind: session.TogglePriority}, false, true
	case key.Matches(k, DefaultKeyMap.ProcsDown):
		return session.Action{Kind: session.AddGOMAXPROCS, N: -1}, false, true
	case key.Matches(k, DefaultKeyMap.ProcsUp):
		return session.Action{Kind: session.AddGOMAXPROCS, N: 1}, false, true
	case key.Matches(k, DefaultKeyMap.ProcsRuntime):
		return session.Action{Kind: session.DefaultGOMAXPROCS}, false, true
	case key.Matches(k, DefaultKeyMap.Auto):
		return session.Action{Kind: session.AutoSize}, false, true
	}
	for _, b := range DefaultKeyMap.Knobs {
		if key.Matches(k, b) {
			return session.Action{Kind: session.Turn, Key: k.String()}, false, true
		}
	}
	return session.Action{}, false, false
}

// KeyMsg is the key press Bubble Tea delivers for a key string of Keys();
// --keys scripts send it to the program so a scripted key takes the same
// path as a typed one. KeyMsg(k).String() == k for every k in Keys().
func KeyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}
