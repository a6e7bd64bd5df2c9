package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/offtop/offtop/internal/crash"
)

// safe wraps a Cmd so a panic in it goes to crash's handler (and the Cmd
// returns no message) instead of Bubble Tea's own catcher, which prints a
// stack trace over the screen. Bubble Tea runs the Cmds of a BatchMsg on
// goroutines of its own, so a batch is wrapped Cmd by Cmd. Sequence is not
// used by this package (its message type is not exported, so it could not
// be wrapped).
//
// With no crash handler set (tests), a panic goes on up as before.
func safe(c tea.Cmd) tea.Cmd {
	if c == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer crash.Recover()
		msg = c()
		if b, ok := msg.(tea.BatchMsg); ok {
			wrapped := make(tea.BatchMsg, len(b))
			for i, c := range b {
				wrapped[i] = safe(c)
			}
			msg = wrapped
		}
		return msg
	}
}
