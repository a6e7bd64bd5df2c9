package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/offtop/offtop/internal/session"
)

// footer is the short help from the key map: the dashboard's, or the ?
// screen's own (scroll, close). Where it does not fit w it keeps every key:
// first +/- and 0-9 share one entry ("+/- 0-9 size"), then entries sit one
// space apart, and only then are the last ones left out, "? help" kept at
// the end.
func footer(w int, v viewState, attached bool) string {
	return footerTaking(w, v, attached, nil, false)
}

// footerTaking is footer attached to an agent that takes acts
// (Snapshot.Actions; nil: ProgramActions); paused, space says resume.
func footerTaking(w int, v viewState, attached bool, acts []string, paused bool) string {
	return footers.get(footerKey{w: w, help: v.help, attached: attached, listed: acts != nil, acts: strings.Join(acts, " "), paused: paused}, footerFor)
}

// fleetFooter is the fleet screen's footer for width w.
func fleetFooter(w int) string { return footers.get(footerKey{w: w, fleet: true}, footerFor) }

// footerKey is what the footer depends on.
type footerKey struct {
	w                             int
	help, attached, fleet, paused bool
	// listed: attached to an agent that lists the actions it takes, acts
	// (space-separated).
	listed bool
	acts   string
}

// actions is the list of acts, nil when not listed.
func (k footerKey) actions() []string {
	if !k.listed {
		return nil
	}
	return append([]string{}, strings.Fields(k.acts)...)
}

// footers remembers the footer per width and mode: it is the same every
// frame, and bubbles' help view formatting it was a fifth of a frame.
var footers = newMemo[footerKey, string](64)

func footerFor(k footerKey) string {
	h := help.New()
	h.Styles = helpStyles()
	bs := DefaultKeyMap.ShortHelp()
	switch {
	case k.help:
		bs = DefaultKeyMap.HelpShortHelp()
	case k.attached:
		bs = DefaultKeyMap.footer(true, k.actions())
	case k.fleet:
		bs = DefaultKeyMap.FleetShortHelp()
	}
	if k.paused {
		for i, b := range bs {
			if b.Help().Key == "space" {
				bs[i] = key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp("space", "resume"))
			}
		}
	}
	for _, try := range []struct {
		bs  []key.Binding
		sep string
	}{{bs, "  "}, {compactHelp(bs), "  "}, {compactHelp(bs), " "}} {
		h.ShortSeparator = try.sep
		if out := h.ShortHelpView(try.bs); lipgloss.Width(out) <= k.w {
			return out
		}
	}
	// The rest fitted, then help: the one key that explains the others.
	bs = compactHelp(bs)
	var last []key.Binding
	if len(bs) > 0 && bs[0].Help().Key == "?" {
		bs, last = bs[1:], bs[:1]
	}
	h.ShortSeparator = " "
	for len(bs) > 0 {
		if out := h.ShortHelpView(append(slices.Clip(bs), last...)); lipgloss.Width(out) <= k.w {
			return out
		}
		bs = bs[:len(bs)-1]
	}
	return h.ShortHelpView(last)
}

// compactHelp is bs with +/- and 0-9 in one entry, "+/- 0-9 size", and
// a paused load's "space resume" as "space go".
func compactHelp(bs []key.Binding) []key.Binding {
	out := make([]key.Binding, 0, len(bs))
	for i := 0; i < len(bs); i++ {
		b := bs[i]
		if b.Help().Key == "+/-" && i+1 < len(bs) && bs[i+1].Help().Key == "0-9" {
			b = key.NewBinding(key.WithKeys(append(b.Keys(), bs[i+1].Keys()...)...), key.WithHelp("+/- 0-9", "size"))
			i++
		}
		if b.Help().Key == "space" && b.Help().Desc == "resume" { // paused: as short as "pause"
			b = key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp("space", "go"))
		}
		out = append(out, b)
	}
	return out
}

func helpStyles() help.Styles {
	return help.Styles{
		Ellipsis:       theme.Faint.Style,
		ShortKey:       theme.Bold.Style,
		ShortDesc:      lipgloss.NewStyle(),
		ShortSeparator: lipgloss.NewStyle(),
		FullKey:        theme.Bold.Style,
		FullDesc:       lipgloss.NewStyle(),
		FullSeparator:  lipgloss.NewStyle(),
	}
}

// helpLines is the whole ? screen for width w: every binding of the key
// map on its own line under one aligned key column, grouped, then what the
// screen's marks and figures mean, wrapped to w.
func helpLines(s session.Snapshot, w int) []string {
	groups := DefaultKeyMap.fullHelp(s.Remote != "", s.Actions)
	kw := 0
	for _, g := range groups {
		for _, b := range g {
			kw = max(kw, cellWidth(b.Help().Key))
		}
	}
	out := []string{theme.Title.Render("keys")}
	for gi, g := range groups {
		if gi > 0 {
			out = append(out, "")
		}
		for _, b := range g {
			out = append(out, wrapHanging(theme.Bold.Render(fit(b.Help().Key, kw))+"  ", b.Help().Desc, w, kw+2)...)
		}
	}
	res := "the resolution"
	if s.Resolution > 0 {
		res = fmtDur(time.Duration(s.Resolution))
	}
	legend := []string{
		"▶ headline: the scenario's one figure to watch, now (over the window) and at the pick: that row's p99 as it stands, which grows if its tail does.",
		"sizes tried: a row per pool size held 1s or more, each measured only at that size (its own histograms); > the size now, * the pick, its rule and figures on the pick: line (the search's once a finishes; before any row, start N is the CPU rule's starting point, not an answer); s! a row held while others took more than a quarter of the CPUs, not picked while a clean row exists. r clears them; tab keeps them per scenario.",
		"others N of M CPUs (header): CPU the rest of the machine used over the last second; warm above a tenth of the CPUs, hot above a quarter, when every figure measures the neighbours too.",
		"meters: | busy on a CPU (all of busy when on-CPU time is unknown), : busy off a CPU (waiting for a core or for I/O); then busy % and on-CPU %; ↓ a retiring worker (ends after its task).",
		"Loop queue: callbacks waiting for the Loop. pool queue: tasks waiting for a worker.",
		"marks: " + markWarm + " busy >= 60% or probe p99 > 10 ms; " + markHot + " busy >= 90% or probe p99 > 50 ms.",
		"charts: one column per " + fmtDur(chartStep) + " (per sample when the interval is longer), the highest value of its samples; size: the pool size in force under each column (0 = inline).",
		"loop probe: lateness of a callback due every " + res + " on the Loop; corrected adds the samples a stalled probe missed (coordinated omission).",
		"d: raw and corrected probe, since reset, sched probe (a free goroutine), runtime /sched/latencies, task wait+run; the pool's counts since start.",
		"n/a: nothing ended in the window: no data yet, or every observation still waiting (look at the queues).",
	}
	out = append(out, "", theme.Title.Render("reading the screen"))
	for _, l := range legend {
		out = append(out, wordwrap(l, w)...)
	}
	return out
}

// wrapHanging wraps desc after head (of hang cells) to w, later lines
// indented by hang, so the key column stays one column.
func wrapHanging(head, desc string, w, hang int) []string {
	room := max(w-hang, 1)
	parts := wordwrap(desc, room)
	out := make([]string, len(parts))
	for i, p := range parts {
		if i == 0 {
			out[i] = head + p
		} else {
			out[i] = strings.Repeat(" ", hang) + p
		}
	}
	return out
}

// helpBody is the ? screen from line top in avail lines; when it does not
// fit, the last line says where the view is and how to scroll.
func helpBody(s session.Snapshot, w, avail, top int) []string {
	all := helpLines(s, w)
	if len(all) <= avail {
		return all
	}
	n := max(avail-1, 0)
	top = clampTop(top, len(all), n)
	out := append([]string(nil), all[top:top+n]...)
	return append(out, theme.Faint.Render(fmt.Sprintf("lines %d-%d of %d  ↑/↓ scroll", top+1, top+n, len(all))))
}

// clampTop keeps a scroll position within 0..total-shown.
func clampTop(top, total, shown int) int {
	return min(max(top, 0), max(total-shown, 0))
}

// helpScroll is the help screen's new top after moving by delta lines, for
// a screen of w x h.
func helpScroll(s session.Snapshot, w, h, top, delta int) int {
	total := len(helpLines(s, w))
	return clampTop(top+delta, total, max(h-3, 0))
}
