package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/session"
)

// withKeys makes km offtop's key map for the test (and forgets the
// footers drawn from the one before).
func withKeys(t *testing.T, km KeyMap) {
	t.Helper()
	old, oldFooters := DefaultKeyMap, footers
	DefaultKeyMap, footers = km, newMemo[footerKey, string](64)
	t.Cleanup(func() { DefaultKeyMap, footers = old, oldFooters })
}

// TestOneDeclarationReachesEveryView: a key declared once, in the table
// only, is in the key map, the footers, the ? screen, the keys --keys
// takes and --help lists, and the attached filter (by its Action), and a
// press posts its Action.
func TestOneDeclarationReachesEveryView(t *testing.T) {
	taken := keyDef{keys: []string{"x"}, label: "x", help: "test reset", act: post(session.Action{Kind: session.Reset}),
		group: groupView, foot: footSpot{at: 20, key: "x", desc: "xreset"}, script: true}
	scenarioOnly := keyDef{keys: []string{"X"}, label: "X", help: "test load", act: post(session.Action{Kind: session.Load, N: 2}),
		group: groupLoad, foot: footSpot{at: 21, key: "X", desc: "xload"}, script: true}
	withKeys(t, newKeyMap(append(declaredKeys(), taken, scenarioOnly)))

	var mapped []string
	for _, b := range DefaultKeyMap.all() {
		mapped = append(mapped, b.Keys()...)
	}
	for _, k := range []string{"x", "X"} {
		if !slices.Contains(mapped, k) || !slices.Contains(Keys(), k) || !slices.Contains(KeyNames(), k) {
			t.Errorf("%s: key map %q, Keys %q, KeyNames %q", k, mapped, Keys(), KeyNames())
		}
	}
	if out := ansi.Strip(footer(300, viewState{}, false)); !strings.Contains(out, "x xreset") || !strings.Contains(out, "X xload") {
		t.Errorf("footer lacks x, X: %q", out)
	}
	if out := ansi.Strip(footer(300, viewState{}, true)); !strings.Contains(out, "x xreset") || strings.Contains(out, "xload") {
		t.Errorf("attached footer: want x, not X: %q", out)
	}
	help := ansi.Strip(strings.Join(helpLines(richSnapshot(), 100), "\n"))
	if !strings.Contains(help, "x         test reset") || !strings.Contains(help, "X         test load") {
		t.Errorf("? screen lacks x, X:\n%s", help)
	}
	if !AttachedKey("x") || AttachedKey("X") || !slices.Contains(AttachedKeys(), "x") || slices.Contains(AttachedKeys(), "X") {
		t.Errorf("attached: x %v, X %v, AttachedKeys %q", AttachedKey("x"), AttachedKey("X"), AttachedKeys())
	}
	if a, quit, ok := ActionFor("X"); a != (session.Action{Kind: session.Load, N: 2}) || quit || !ok {
		t.Errorf("ActionFor(X) = %v %v %v", a, quit, ok)
	}
	f := newFake()
	press(t, New(f), "x")
	if acts := f.Actions(); len(acts) != 1 || acts[0].Kind != session.Reset {
		t.Errorf("x posted %v, want reset", acts)
	}
}

// TestKeyTableRefusesDoubleBinding: a key bound twice on one screen is
// refused when the map is made; one key on each screen (up: add a
// worker, scroll the ? screen) is fine.
func TestKeyTableRefusesDoubleBinding(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("r bound twice on the dashboard: no panic")
		}
	}()
	newKeyMap(append(declaredKeys(), keyDef{keys: []string{"r"}, label: "r", help: "again", use: useDetail}))
}

// TestAttachedFooterIsTheProgramFilter: the attached footer has an entry
// exactly when an attached run takes all its keys.
func TestAttachedFooterIsTheProgramFilter(t *testing.T) {
	var got []string
	for _, b := range DefaultKeyMap.AttachedShortHelp() {
		got = append(got, b.Help().Key)
		for _, k := range b.Keys() {
			if !AttachedKey(k) {
				t.Errorf("attached footer entry %q has %q, which an attached run does not take", b.Help().Key, k)
			}
		}
	}
	if want := []string{"?", "q", "+/-", "0-9", "a", "d", "r", "g/G"}; !slices.Equal(got, want) {
		t.Errorf("attached footer %q, want %q", got, want)
	}
}

// TestSuspendKey: ctrl+z, and only it, is the key the program's filter
// takes for a suspension; --keys may not send it.
func TestSuspendKey(t *testing.T) {
	for _, k := range append(Keys(), "ctrl+z", "z", "esc") {
		if got, want := SuspendKey(k), k == "ctrl+z"; got != want {
			t.Errorf("SuspendKey(%q) = %v", k, got)
		}
	}
	if slices.Contains(Keys(), "ctrl+z") {
		t.Error("--keys may send ctrl+z")
	}
}
