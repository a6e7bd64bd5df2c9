package remote

import (
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
)

// TestNotesSayAGiveUp: a disconnected member's lines are skipped with one
// "reconnecting" note per break; once its Notice says it is given up on,
// that Notice is the note (once), not "reconnecting".
func TestNotesSayAGiveUp(t *testing.T) {
	var w strings.Builder
	n := Notes{W: &w}
	var down session.Snapshot
	down.Remote, down.Disconnected = "127.0.0.1:7070", time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	for range 3 {
		if !n.Skip(down) {
			t.Fatal("a disconnected sample not skipped")
		}
	}
	down.Notice = "127.0.0.1:7070: not an offtop agent; not dialled again"
	for range 2 {
		n.Skip(down)
	}
	want := "offtop: disconnected from 127.0.0.1:7070 at 06:00:00; reconnecting every 500ms\n" +
		"offtop: 127.0.0.1:7070: not an offtop agent; not dialled again\n"
	if w.String() != want {
		t.Errorf("notes %q, want %q", w.String(), want)
	}
}
