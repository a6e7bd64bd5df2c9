package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/offtop/offtop/internal/session"
)

// footer is the short help from the key map: the dashboard's, or the ?
// screen's own (scroll, close).
func footer(w int, v viewState, attached bool) string {
	h := help.New()
	h.ShortSeparator = "  "
	h.Styles = helpStyles()
	h.SetWidth(w)
	if v.help {
		return h.ShortHelpView(DefaultKeyMap.HelpShortHelp())
	}
	if attached {
		return h.ShortHelpView(DefaultKeyMap.AttachedShortHelp())
	}
	return h.ShortHelpView(DefaultKeyMap.ShortHelp())
}

func helpStyles() help.Styles {
	return help.Styles{
		Ellipsis:       theme.Faint,
		ShortKey:       theme.Bold,
		ShortDesc:      lipgloss.NewStyle(),
		ShortSeparator: lipgloss.NewStyle(),
		FullKey:        theme.Bold,
		FullDesc:       lipgloss.NewStyle(),
		FullSeparator:  lipgloss.NewStyle(),
	}
}

// helpLines is the whole ? screen for width w: every binding of the key
// map on its own line under one aligned key column, grouped, then what the
// screen's marks and figures mean, wrapped to w.
func helpLines(s session.Snapshot, w int) []string {
	groups := DefaultKeyMap.FullHelp()
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
		"▶ headline: the scenario's one figure to watch, now (over the window) and at the best size so far.",
		"sizes tried: a row per pool size held 1s or more, each measured only at that size (its own histograms); > the size now, * the best by the rule under the table. r clears them; tab keeps them per scenario.",
		"meters: | busy on a CPU (all of busy when on-CPU time is unknown), : busy off a CPU (waiting for a core or for I/O); then busy % and on-CPU %; ↓ a retiring worker (ends after its task).",
		"Loop queue: callbacks waiting for the Loop. pool queue: tasks waiting for a worker.",
		"marks: " + markWarm + " busy >= 60% or probe p99 > 10 ms; " + markHot + " busy >= 90% or probe p99 > 50 ms.",
		"charts: one column per " + fmtDur(chartStep) + " (per sample when the interval is longer), the highest value of its samples; size: the pool size in force under each column (0 = inline).",
		"loop probe: lateness of a callback due every " + res + " on the Loop; corrected adds the samples a stalled probe missed (coordinated omission).",
		"d: raw and corrected probe, since reset, sched probe (a free goroutine), runtime /sched/latencies, task wait+run; the pool's counts since start.",
		"n/a: no data yet.",
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
