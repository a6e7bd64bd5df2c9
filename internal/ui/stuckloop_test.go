package ui

import (
	"strings"
	"testing"

	"github.com/offtop/offtop/internal/session"
)

// TestStuckLoopSaysWhyTasksWait: at 0 workers with a task past its
// deadline holding the Loop (the pool's Stuck), the line under the Loop
// says so and how many tasks wait behind it, instead of the idle hint,
// and fits the width.
func TestStuckLoopSaysWhyTasksWait(t *testing.T) {
	for _, w := range []int{80, 100, 160} {
		out := plain(session.Snapshot{Pool: session.Pool{Stuck: 1, QueueDepth: 286, Submitted: 287, TimedOut: 1}}, w, 30, false)
		if !strings.Contains(out, "no workers; a stuck task holds the Loop: 286 wait (1-9 moves them to a pool)") || strings.Contains(out, "no workers: tasks run inline") {
			t.Errorf("%d columns: no word of the stuck Loop and the tasks behind it\n%s", w, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if n := len([]rune(l)); n > w {
				t.Errorf("%d columns: a line of %d: %q", w, n, l)
			}
		}
	}
}
