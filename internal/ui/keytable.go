package ui

import (
	"slices"
	"strings"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/workload"
)

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
