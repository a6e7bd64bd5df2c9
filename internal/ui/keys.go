package ui

import (
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"

	"github.com/offtop/offtop/internal/session"
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
