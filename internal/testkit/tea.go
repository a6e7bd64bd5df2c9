package testkit

import tea "charm.land/bubbletea/v2"

// Drive gives m msg and runs the Cmds it returns, and theirs, to the end,
// each on the calling goroutine (a Cmd that waits, waits here); a quit
// ends nothing but its own Cmd. It returns the model after the last.
func Drive(m tea.Model, msg tea.Msg) tea.Model {
	next, cmd := m.Update(msg)
	cmds := []tea.Cmd{cmd}
	for len(cmds) > 0 {
		c := cmds[0]
		cmds = cmds[1:]
		if c == nil {
			continue
		}
		switch out := c().(type) {
		case nil, tea.QuitMsg:
		case tea.BatchMsg:
			cmds = append(cmds, out...)
		default:
			next, cmd = next.Update(out)
			cmds = append(cmds, cmd)
		}
	}
	return next
}
