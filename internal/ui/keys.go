package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/workload"
)

// keyDef declares one key: everything offtop does with it. The key map,
// the model's Update, the footers, the ? screen, the --keys check (Keys),
// offtop --help's key list (KeyNames), the suspend filter (SuspendKey) and
// whether an attached run takes it (AttachedKey: by its Action, as
// session.ProgramActions says) are all read from these declarations
// (declaredKeys).
//
// Key strings are Bubble Tea v2's KeyPressMsg.String(): "+", "up", "space",
// "tab", "ctrl+c", "0".."9" and so on.
type keyDef struct {
	keys        []string
	label, help string // the ? screen's line: "+/↑  add worker"
	// use is what the key does; for useAction, act is the Action it posts
	// for the key string pressed (one of keys).
	use keyUse
	act func(k string) session.Action
	// group is the ? screen's column; fold puts the key on the shared
	// knob lines (knobsHelp) instead of a line of its own.
	group keyGroup
	fold  bool
	foot  footSpot
	// script: a --keys step may send it (Keys).
	script bool
}

// keyUse is what a key does, and so the screen it works on: the ? screen
// takes the scroll and close keys and quit; the dashboard every other.
type keyUse int

const (
	useAction     keyUse = iota // posts act(key) to the session
	useQuit                     // ends the program (both screens)
	useHelp                     // opens the ? screen
	useDetail                   // latency detail on or off
	useRoute                    // attached: the next route in the headline and sizes tried
	useSuspend                  // none here: cmd/offtop's filter takes it before the model
	useScrollUp                 // the ? screen: scroll up
	useScrollDown               // the ? screen: scroll down
	useCloseHelp                // the ? screen: close it
	useSelectUp                 // the fleet: select the row above
	useSelectDown               // the fleet: select the row below
	useOpen                     // the fleet: open the selected process's dashboard
	useSort                     // the fleet: the next sort key
	useBack                     // a dashboard opened from the fleet: back to the fleet
)

// onDashboard, onHelp and onFleet report the screens u works on. The
// fleet screen (offtop attach ADDR ADDR...) takes its own keys first,
// then the dashboard's that act on an attached program and quit
// (fleetLookup), so its up and down select rather than resize.
func (u keyUse) onDashboard() bool { return u < useScrollUp || u == useBack }
func (u keyUse) onHelp() bool      { return u >= useScrollUp && u <= useCloseHelp || u == useQuit }
func (u keyUse) onFleet() bool     { return u >= useSelectUp && u <= useSort }

// keyGroup is a column of the ? screen.
type keyGroup int

const (
	groupPool keyGroup = iota // the pool's size and the Ps it runs on
	groupLoad                 // the load and the scenarios' own knobs
	groupView                 // figures, the screen, leaving
	groupHelp                 // the ? screen's own keys
	groups
	groupFleet = groups // the fleet's keys: on no ? screen column
)

// footSpot is a key's entry in the dashboard's footer: at is its place
// from 1 (0: not in the footer), and keys of one place share the entry,
// whose text key and desc the first of them gives. attachedOnly shows it
// only in the attached footer.
type footSpot struct {
	at           int
	key, desc    string
	attachedOnly bool
}

// post is an act that posts a whatever the key.
func post(a session.Action) func(string) session.Action {
	return func(string) session.Action { return a }
}

// declaredKeys is offtop's keys, in the ? screen's order.
func declaredKeys() []keyDef {
	pool := []keyDef{
		{keys: []string{"+", "up"}, label: "+/↑", help: "add worker", act: post(session.Action{Kind: session.AddWorkers, N: 1}),
			foot: footSpot{at: 3, key: "+/-", desc: "workers"}, script: true},
		{keys: []string{"-", "down"}, label: "-/↓", help: "remove worker", act: post(session.Action{Kind: session.AddWorkers, N: -1}),
			foot: footSpot{at: 3}, script: true},
		{keys: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, label: "0-9", help: "set workers (0 = inline)",
			act:  func(k string) session.Action { return session.Action{Kind: session.SetWorkers, N: int(k[0] - '0')} },
			foot: footSpot{at: 4, key: "0-9", desc: "size"}, script: true},
		{keys: []string{"a"}, label: "a", help: "find the size (any key cancels)", act: post(session.Action{Kind: session.AutoSize}),
			foot: footSpot{at: 5, key: "a", desc: "auto"}, script: true},
		{keys: []string{"g"}, label: "g", help: "GOMAXPROCS down", act: post(session.Action{Kind: session.AddGOMAXPROCS, N: -1}),
			foot: footSpot{at: 11, key: "g/G", desc: "GOMAXPROCS", attachedOnly: true}, script: true},
		{keys: []string{"G"}, label: "G", help: "GOMAXPROCS up", act: post(session.Action{Kind: session.AddGOMAXPROCS, N: 1}),
			foot: footSpot{at: 11, attachedOnly: true}, script: true},
		{keys: []string{"="}, label: "=", help: "GOMAXPROCS to the runtime", act: post(session.Action{Kind: session.DefaultGOMAXPROCS}), script: true},
		{keys: []string{"y"}, label: "y", help: "priority workers on/off", act: post(session.Action{Kind: session.TogglePriority}),
			script: true},
	}
	load := []keyDef{
		{keys: []string{"["}, label: "[", help: "less load", act: post(session.Action{Kind: session.Load, N: -1}),
			foot: footSpot{at: 6, key: "[/]", desc: "load"}, script: true},
		{keys: []string{"]"}, label: "]", help: "more load", act: post(session.Action{Kind: session.Load, N: 1}),
			foot: footSpot{at: 6}, script: true},
		{keys: []string{"space"}, label: "space", help: "pause load", act: post(session.Action{Kind: session.TogglePause}),
			foot: footSpot{at: 10, key: "space", desc: "pause"}, script: true},
		{keys: []string{"tab"}, label: "tab", help: "next scenario", act: post(session.Action{Kind: session.NextScenario}),
			foot: footSpot{at: 7, key: "tab", desc: "next"}, script: true},
		{keys: []string{"u"}, label: "u", help: "goroutine per task on/off", act: post(session.Action{Kind: session.TogglePerTask}),
			fold: true, script: true},
	}
	load = append(load, knobDefs(workload.AllKnobs())...)
	view := []keyDef{
		{keys: []string{"r"}, label: "r", help: "reset figures", act: post(session.Action{Kind: session.Reset}),
			foot: footSpot{at: 9, key: "r", desc: "reset"}, script: true},
		{keys: []string{"d"}, label: "d", help: "latency detail on/off", use: useDetail,
			foot: footSpot{at: 8, key: "d", desc: "detail"}, fold: true, script: true},
		{keys: []string{"e"}, label: "e", help: "next route as headline (attached)", use: useRoute, fold: true, script: true},
		{keys: []string{"?"}, label: "?", help: "this help", use: useHelp,
			foot: footSpot{at: 1, key: "?", desc: "help"}, script: true},
		{keys: []string{"q", "ctrl+c"}, label: "q/ctrl+c", help: "quit", use: useQuit,
			foot: footSpot{at: 2, key: "q", desc: "quit"}, script: true},
		{keys: []string{"ctrl+z"}, label: "ctrl+z", help: "suspend (fg resumes)", use: useSuspend},
	}
	help := []keyDef{
		{keys: []string{"up", "k", "pgup"}, label: "↑/k", help: "scroll up", use: useScrollUp},
		{keys: []string{"down", "j", "pgdown", "space"}, label: "↓/j", help: "scroll down", use: useScrollDown},
		{keys: []string{"?", "esc"}, label: "?/esc", help: "close help", use: useCloseHelp},
	}
	fleet := []keyDef{
		{keys: []string{"up", "k"}, label: "↑/k", help: "select the process above", use: useSelectUp,
			foot: footSpot{at: 1, key: "↑/↓", desc: "select"}},
		{keys: []string{"down", "j"}, label: "↓/j", help: "select the process below", use: useSelectDown, foot: footSpot{at: 1}},
		{keys: []string{"enter"}, label: "enter", help: "open its dashboard", use: useOpen,
			foot: footSpot{at: 2, key: "enter", desc: "open"}},
		{keys: []string{"s"}, label: "s", help: "next sort key", use: useSort, foot: footSpot{at: 3, key: "s", desc: "sort"}},
		{keys: []string{"esc"}, label: "esc", help: "back to the fleet", use: useBack},
	}
	var all []keyDef
	for g, defs := range [groups][]keyDef{groupPool: pool, groupLoad: load, groupView: view, groupHelp: help} {
		for _, d := range defs {
			d.group = keyGroup(g)
			all = append(all, d)
		}
	}
	for _, d := range fleet {
		d.group = groupFleet
		all = append(all, d)
	}
	return all
}

// knobDefs declares the scenarios' knobs, one key each, posting
// session.Turn, in --help's order (c l L o). The knobs come in here
// only, from declaredKeys.
func knobDefs(knobs []workload.Knob) []keyDef {
	knobs = slices.Clone(knobs)
	slices.SortStableFunc(knobs, func(a, b workload.Knob) int { return letterOrder(a.Key, b.Key) })
	var out []keyDef
	for _, k := range knobs {
		out = append(out, keyDef{keys: []string{k.Key}, label: k.Key, help: k.Help,
			act:  func(k string) session.Action { return session.Action{Kind: session.Turn, Key: k} },
			fold: true, script: true})
	}
	return out
}

// letterOrder orders keys alphabetically, a letter's lower case first:
// c l L o.
func letterOrder(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return strings.Compare(b, a)
}

// KeyMap is offtop's one key map, made from declaredKeys. It drives the
// footers (ShortHelp, AttachedShortHelp, HelpShortHelp), the ? screen
// (FullHelp), the model's Update and ActionFor, which --keys scripts use
// too, so a key means the same thing everywhere.
type KeyMap struct {
	defs []keyDef
}

// DefaultKeyMap is the key map offtop uses.
var DefaultKeyMap = newKeyMap(declaredKeys())

// newKeyMap is the key map of defs. It panics when a key is bound twice
// on one screen or a footer entry has no text: a table that cannot be.
func newKeyMap(defs []keyDef) KeyMap {
	dash, help, fleet := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, d := range defs {
		if len(d.keys) == 0 || (d.use == useAction) != (d.act != nil) || d.script && !d.use.onDashboard() {
			panic(fmt.Sprintf("ui: key %q: declared wrong", d.label))
		}
		for _, k := range d.keys {
			for _, on := range []struct {
				yes  bool
				seen map[string]bool
			}{{d.use.onDashboard(), dash}, {d.use.onHelp(), help}, {d.use.onFleet(), fleet}} {
				if on.yes && on.seen[k] {
					panic(fmt.Sprintf("ui: key %q bound twice on one screen", k))
				}
				on.seen[k] = on.seen[k] || on.yes
			}
		}
	}
	km := KeyMap{defs: defs}
	for _, attached := range []bool{false, true} {
		for _, b := range km.footer(attached, nil) {
			if b.Help().Key == "" || b.Help().Desc == "" {
				panic(fmt.Sprintf("ui: footer entry of %q has no text", b.Keys()))
			}
		}
	}
	return km
}

// binding is d as a bubbles key binding.
func (d keyDef) binding() key.Binding {
	return key.NewBinding(key.WithKeys(d.keys...), key.WithHelp(d.label, d.help))
}

// attached reports whether an attached run does something with d: the
// UI's own keys and quit, and a key whose Action the agent applies
// (session.ProgramActions).
func (d keyDef) attached() bool {
	return d.use != useAction || session.ProgramActions(d.act(d.keys[0]).Kind)
}

// takenBy reports whether a program attached whose agent takes acts
// (Snapshot.Actions; nil: ProgramActions) does something with d.
func (d keyDef) takenBy(acts []string) bool {
	return d.use != useAction || session.Accepts(acts, d.act(d.keys[0]).Kind)
}

// lookup is the declaration of key k on the ? screen (help) or the
// dashboard.
func (km KeyMap) lookup(k string, help bool) (keyDef, bool) {
	for _, d := range km.defs {
		on := d.use.onDashboard()
		if help {
			on = d.use.onHelp()
		}
		if on && slices.Contains(d.keys, k) {
			return d, true
		}
	}
	return keyDef{}, false
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
		slices.SortFunc(ks, letterOrder)
		pairs = append(pairs, key.NewBinding(key.WithKeys(ks...), key.WithHelp(strings.Join(ks, "/"), d)))
	}
	if len(singles) == 0 {
		return pairs
	}
	one := key.NewBinding(key.WithKeys(singles...), key.WithHelp(strings.Join(singles, "/"), strings.Join(singleDescs, ", ")))
	return append([]key.Binding{one}, pairs...)
}

// footer is the dashboard's footer entries in place order: the keys with
// a footSpot, those of one place in one entry; attached, only the entries
// whose every key the agent takes (takenBy acts), and the attachedOnly
// ones.
func (km KeyMap) footer(attached bool, acts []string) []key.Binding {
	type entry struct {
		at        int
		key, desc string
		keys      []string
		drop      bool
	}
	var es []*entry
	for _, d := range km.defs {
		f := d.foot
		if f.at == 0 || !d.use.onDashboard() || d.group == groupFleet {
			continue
		}
		i := slices.IndexFunc(es, func(e *entry) bool { return e.at == f.at })
		if i < 0 {
			es = append(es, &entry{at: f.at, key: f.key, desc: f.desc})
			i = len(es) - 1
		}
		e := es[i]
		e.keys = append(e.keys, d.keys...)
		e.drop = e.drop || attached && !d.takenBy(acts) || !attached && f.attachedOnly
	}
	slices.SortStableFunc(es, func(a, b *entry) int { return a.at - b.at })
	out := []key.Binding{}
	for _, e := range es {
		if !e.drop {
			out = append(out, key.NewBinding(key.WithKeys(e.keys...), key.WithHelp(e.key, e.desc)))
		}
	}
	return out
}

// fleetLookup is the declaration of key k on the fleet screen: its own
// keys first, then the dashboard's that post an Action an attached
// program takes (to the selected process) and quit.
func (km KeyMap) fleetLookup(k string) (keyDef, bool) {
	for _, d := range km.defs {
		if d.use.onFleet() && slices.Contains(d.keys, k) {
			return d, true
		}
	}
	d, ok := km.lookup(k, false)
	if ok && (d.use == useQuit || d.use == useAction && d.attached()) {
		return d, true
	}
	return keyDef{}, false
}

// FleetShortHelp is the fleet screen's footer: its own keys' entries,
// then the attached footer's entries with a key that does the same there
// (fleetLookup: "+/-" for + and -, up and down selecting).
func (km KeyMap) FleetShortHelp() []key.Binding {
	var out []key.Binding
	for _, d := range km.defs {
		if d.use.onFleet() && d.foot.key != "" {
			var keys []string
			for _, e := range km.defs {
				if e.use.onFleet() && e.foot.at == d.foot.at {
					keys = append(keys, e.keys...)
				}
			}
			out = append(out, key.NewBinding(key.WithKeys(keys...), key.WithHelp(d.foot.key, d.foot.desc)))
		}
	}
	for _, b := range km.AttachedShortHelp() {
		same := false
		for _, k := range b.Keys() {
			d, ok := km.fleetLookup(k)
			same = same || ok && !d.use.onFleet()
		}
		if same {
			out = append(out, b)
		}
	}
	return out
}

// ShortHelp is the dashboard's footer, in the order shown.
func (km KeyMap) ShortHelp() []key.Binding { return km.footer(false, nil) }

// AttachedShortHelp is the footer attached to a program (offtop attach):
// the entries of keys its agent takes (AttachedKey), no scenario's.
func (km KeyMap) AttachedShortHelp() []key.Binding { return km.footer(true, nil) }

// HelpShortHelp is the footer on the ? screen: the keys that work there,
// its own before those it shares with the dashboard (quit).
func (km KeyMap) HelpShortHelp() []key.Binding {
	var own, shared []key.Binding
	for _, d := range km.defs {
		switch {
		case !d.use.onHelp():
		case d.use.onDashboard():
			shared = append(shared, d.binding())
		default:
			own = append(own, d.binding())
		}
	}
	return append(own, shared...)
}

// FullHelp is the ? screen: one column per group, each key on a line of
// its own but the folded ones (knobsHelp), which stand where the first
// of them is declared.
func (km KeyMap) FullHelp() [][]key.Binding { return km.fullHelp(false, nil) }

// fullHelp is FullHelp, attached only the keys the agent takes (takenBy
// acts) and the ? screen's own.
func (km KeyMap) fullHelp(attached bool, acts []string) [][]key.Binding {
	out := make([][]key.Binding, groups)
	folded := make([][]key.Binding, groups)
	at := make([]int, groups)
	for _, d := range km.defs {
		g := d.group
		if g == groupFleet || attached && !d.takenBy(acts) {
			continue
		}
		if !d.fold {
			out[g] = append(out[g], d.binding())
			continue
		}
		if folded[g] == nil {
			at[g] = len(out[g])
		}
		folded[g] = append(folded[g], d.binding())
	}
	for g := range out {
		if folded[g] != nil {
			out[g] = slices.Insert(out[g], at[g], knobsHelp(folded[g])...)
		}
	}
	return slices.DeleteFunc(out, func(bs []key.Binding) bool { return len(bs) == 0 })
}

// all lists every binding --keys may send, once each.
func (km KeyMap) all() []key.Binding {
	var out []key.Binding
	for _, d := range km.defs {
		if d.script {
			out = append(out, d.binding())
		}
	}
	return out
}

// Keys lists every key string a --keys script may send, in declaredKeys's
// order. "?" and "d" are among them although they map to no Action.
func Keys() []string {
	var out []string
	for _, b := range DefaultKeyMap.all() {
		out = append(out, b.Keys()...)
	}
	return out
}

// KeyNames is Keys as offtop --help lists them: a declaration's run of
// keys ("0".."9") by its label ("0-9").
func KeyNames() []string {
	var out []string
	for _, d := range DefaultKeyMap.defs {
		switch {
		case !d.script:
		case len(d.keys) > 2 && d.label == d.keys[0]+"-"+d.keys[len(d.keys)-1]:
			out = append(out, d.label)
		default:
			out = append(out, d.keys...)
		}
	}
	return out
}

// AttachedKey reports whether an attached run (offtop attach) does
// something with key k, one of Keys: a key the dashboard keeps to itself
// (d, ?), quit, or one whose Action the agent applies
// (session.ProgramActions). The scenarios' keys (tab, space, [ ], u and
// the knobs) are not.
func AttachedKey(k string) bool {
	d, ok := DefaultKeyMap.lookup(k, false)
	return ok && d.script && d.attached()
}

// AttachedKeys are the keys of Keys an attached run does something with,
// in Keys' order.
func AttachedKeys() []string {
	var out []string
	for _, k := range Keys() {
		if AttachedKey(k) {
			out = append(out, k)
		}
	}
	return out
}

// SuspendKey reports whether k suspends offtop (ctrl+z): the program's
// message filter takes it before the model sees it.
func SuspendKey(k string) bool {
	d, ok := DefaultKeyMap.lookup(k, false)
	return ok && d.use == useSuspend
}

// ActionFor maps a key string to what it does. quit is true for q and
// ctrl+c; ok is false for a key that is not bound to an Action or to quit
// ("?" toggles the help screen, which is the UI's own business, so it too
// gives ok false). ActionFor is pure.
func ActionFor(k string) (a session.Action, quit bool, ok bool) {
	d, found := DefaultKeyMap.lookup(k, false)
	switch {
	case !found:
		return session.Action{}, false, false
	case d.use == useQuit:
		return session.Action{}, true, true
	case d.use == useAction:
		return d.act(k), false, true
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
