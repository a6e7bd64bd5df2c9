package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestSizesSayRowsHidden: with more sizes than the panel has rows, the
// current row and the picked row stay, and the title names the rows
// left out, however narrow the rest of the title is cut.
func TestSizesSayRowsHidden(t *testing.T) {
	s := richSnapshot() // rows inline, 1, 2 and 8 (current); 1 is the best
	for _, c := range []struct {
		rows        int
		want, avoid string
	}{
		{3, "sizes tried (+1 row hidden: 2 workers; all at exit)", "\n       2  "},
		{2, "sizes tried (+2 rows hidden: inline, 2 workers; all at exit)", "inline  "},
		{4, "sizes tried ─", "hidden"},
	} {
		lines := sizesPanel(s, 100, c.rows)
		out := ansi.Strip(strings.Join(lines, "\n"))
		if !strings.HasPrefix(out, c.want) || strings.Contains(out, c.avoid) {
			t.Errorf("%d rows: want the title %q, not %q:\n%s", c.rows, c.want, c.avoid, out)
		}
		if !strings.Contains(out, "\n>      8") || !strings.Contains(out, "\n *     1") {
			t.Errorf("%d rows: the current (8) or the best (1) row is missing:\n%s", c.rows, out)
		}
		if len(lines) != c.rows+sizesFixed {
			t.Errorf("%d rows: %d lines, want %d", c.rows, len(lines), c.rows+sizesFixed)
		}
	}
}
