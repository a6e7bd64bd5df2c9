package ui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
)

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
