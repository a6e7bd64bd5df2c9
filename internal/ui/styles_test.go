package ui

import (
	"reflect"
	"testing"

	"charm.land/lipgloss/v2"
)

// TestStyleRenderIsLipgloss: every theme style's Render gives the bytes
// lipgloss gives, for plain, styled, wide, empty and multi-line text, and
// a style that does more than colour (a width) is left to lipgloss.
func TestStyleRenderIsLipgloss(t *testing.T) {
	texts := []string{"", "a", "PAUSED", "  12.5 ms ", "─────", "▶ ping p99", "日本語", "\x1b[1mbold\x1b[m inside",
		"two\nlines", "tab\there", "cr\r\nlf", " "}
	v := reflect.ValueOf(theme)
	for i := range v.NumField() {
		st := v.Field(i).Interface().(Style)
		if !st.fast {
			t.Errorf("%s: no fast path", v.Type().Field(i).Name)
		}
		for _, s := range texts {
			if got, want := st.Render(s), st.Style.Render(s); got != want {
				t.Errorf("%s.Render(%q) = %q, lipgloss %q", v.Type().Field(i).Name, s, got, want)
			}
		}
	}
	wide := NewStyle(lipgloss.NewStyle().Bold(true).Width(8))
	if wide.fast {
		t.Error("a style with a width takes the fast path")
	}
	if got, want := wide.Render("ab"), wide.Style.Render("ab"); got != want {
		t.Errorf("width style: %q, lipgloss %q", got, want)
	}
}

// TestMemo: a memo calls f once per key and empties itself when full.
func TestMemo(t *testing.T) {
	calls := 0
	f := func(k int) int { calls++; return 2 * k }
	m := newMemo[int, int](2)
	for _, k := range []int{1, 1, 2, 2} {
		if got := m.get(k, f); got != 2*k {
			t.Fatalf("get(%d) = %d", k, got)
		}
	}
	if calls != 2 {
		t.Errorf("%d calls for two keys", calls)
	}
	m.get(3, f) // full: emptied, then 3 kept
	if len(m.m) != 1 || calls != 3 {
		t.Errorf("after a third key: %d kept, %d calls", len(m.m), calls)
	}
	if got := footer(100, viewState{}, false); got != footerFor(footerKey{w: 100}) {
		t.Errorf("remembered footer %q, formatted %q", got, footerFor(footerKey{w: 100}))
	}
}
