package ui

import (
	"fmt"

	"github.com/offtop/offtop/internal/session"
)

// disconnectedBody is the body while an attached program is gone
// (s.Disconnected set): when the link broke, and that offtop is trying
// again (or s.Notice: why it is not). No figure is shown: none is live.
func disconnectedBody(s session.Snapshot, w, h int) []string {
	what := fmt.Sprintf("the program (%s) stopped answering: no figures until it is back.", s.Scenario)
	if s.Scenario == "" { // never read: a fleet's member down from the start
		what = "nothing has answered there yet: no figures until a program does."
	}
	again := "offtop reconnects when it is back on the same address."
	if s.Notice != "" {
		again = s.Notice // given up on
	}
	lines := []string{
		"",
		theme.Err.Render(fmt.Sprintf("%s disconnected from %s at %s", markHot, s.Remote, s.Disconnected.Format("15:04:05"))),
		"",
		what,
		again,
	}
	if s.Retry != "" {
		lines = append(lines, "", theme.Faint.Render("last try: "+s.Retry))
	}
	return lines[:min(len(lines), h)]
}

// disconnectedHeader replaces the header's figures while disconnected.
func disconnectedHeader(s session.Snapshot) string {
	return theme.Title.Render("offtop attach "+s.Remote) + "  " + theme.Err.Render("disconnected")
}

// outOfRangeNote says how many figures an attached program has sent out
// of their range (session.Decoder), each shown as n/a; "" when none, and
// while disconnected.
func outOfRangeNote(s session.Snapshot) string {
	if s.OutOfRange == 0 || !s.Disconnected.IsZero() {
		return ""
	}
	return fmt.Sprintf("%s %d figures from %s were out of their range: shown as n/a", markHot, s.OutOfRange, s.Remote)
}
