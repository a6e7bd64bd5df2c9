package ui

import (
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/offtop/offtop/internal/hist"
)

// Styles is the dashboard's theme: every style the components use, in one
// place. Each colour comes with a mark or a word, so a monochrome screen
// (NO_COLOR, an Ascii profile) reads the same.
type Styles struct {
	Bold, Faint Style
	// OK, Warm and Hot colour the threshold bands (level).
	OK, Warm, Hot Style
	Pause, Err    Style
	// Title is a panel's title; Rule the line after it.
	Title, Rule Style
	// Figure is the headline's figures; Current the row of the size in
	// force; Best the best size's mark.
	Figure, Current, Best Style
}

// DefaultStyles is offtop's theme.
func DefaultStyles() Styles {
	return Styles{
		Bold:    NewStyle(lipgloss.NewStyle().Bold(true)),
		Faint:   NewStyle(lipgloss.NewStyle().Faint(true)),
		OK:      NewStyle(lipgloss.NewStyle().Foreground(lipgloss.Green)),
		Warm:    NewStyle(lipgloss.NewStyle().Foreground(lipgloss.Yellow)),
		Hot:     NewStyle(lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true)),
		Pause:   NewStyle(lipgloss.NewStyle().Reverse(true).Bold(true)),
		Err:     NewStyle(lipgloss.NewStyle().Foreground(lipgloss.Red).Bold(true)),
		Title:   NewStyle(lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Cyan)),
		Rule:    NewStyle(lipgloss.NewStyle().Faint(true)),
		Figure:  NewStyle(lipgloss.NewStyle().Bold(true)),
		Current: NewStyle(lipgloss.NewStyle().Bold(true)),
		Best:    NewStyle(lipgloss.NewStyle().Foreground(lipgloss.Green).Bold(true)),
	}
}

// Style is a lipgloss.Style that renders one line fast: lipgloss reads
// each of its ~30 properties on every Render (a third of a frame's
// formatting), while for a style that only sets attributes and colours a
// line comes out as a fixed SGR prefix, the line and a fixed suffix. NewStyle
// finds the two by rendering a marker once; Render uses them for text
// with no line break, tab or carriage return, and lipgloss for the rest
// or when the style does more (the marker does not come back whole).
type Style struct {
	lipgloss.Style
	pre, post string
	fast      bool
}

// styleMarker stands for the text when NewStyle renders the style once: a
// private-use rune no style transforms.
const styleMarker = "\uE000"

// NewStyle wraps st for Render.
func NewStyle(st lipgloss.Style) Style {
	s := Style{Style: st}
	if r := st.Render(styleMarker); strings.Count(r, styleMarker) == 1 {
		s.pre, s.post, _ = strings.Cut(r, styleMarker)
		s.fast = st.Render("a b") == s.pre+"a b"+s.post
	}
	return s
}

// Render is lipgloss's Render of str, the same bytes.
func (s Style) Render(str string) string {
	if !s.fast || strings.ContainsAny(str, "\n\r\t") {
		return s.Style.Render(str)
	}
	return s.pre + str + s.post
}

// theme is the Styles the dashboard renders with.
var theme = DefaultStyles()

// Threshold marks.
const (
	markHot  = "!"
	markWarm = "▲"
)

// level is a threshold band: 0 fine, 1 warm, 2 hot.
type level int

// styledMark is the mark in the level's colour; a fine level's mark is a
// plain space (a coloured blank costs a recording ~20 bytes a cell a frame
// and shows nothing).
func (l level) styledMark() string {
	if l == 0 {
		return " "
	}
	return l.style().Render(l.mark())
}

func (l level) mark() string {
	switch l {
	case 2:
		return markHot
	case 1:
		return markWarm
	}
	return " "
}

func (l level) style() Style {
	switch l {
	case 2:
		return theme.Hot
	case 1:
		return theme.Warm
	}
	return theme.OK
}

// paint is text in the level's colour (plain when fine) and its mark.
func (l level) paint(text string) string {
	if l == 0 {
		return text + " "
	}
	return l.style().Render(text) + l.styledMark()
}

// busyLevel: busy >= 90% hot, >= 60% warm.
func busyLevel(share float64) level {
	switch share = clamp01(share); {
	case share >= 0.9:
		return 2
	case share >= 0.6:
		return 1
	}
	return 0
}

// probeLevel: probe p99 > 50 ms hot, > 10 ms warm.
func probeLevel(s hist.Summary) level {
	if s.Count == 0 {
		return 0
	}
	return p99Level(s.P99)
}

func p99Level(p99 time.Duration) level {
	switch p := ms(p99); {
	case p > 50:
		return 2
	case p > 10:
		return 1
	}
	return 0
}
