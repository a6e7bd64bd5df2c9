package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/offtop/offtop/internal/session"
)

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
