package remote

import (
	"fmt"
	"io"

	"github.com/offtop/offtop/internal/session"
)

// Notes tells, on W (stderr), when a Client's stream breaks and when it
// is back, so a writer of lines never writes a disconnected sample as if
// it were figures, and when the stream first has a figure out of its
// range (written as null). One per Client, on the writer's goroutine.
type Notes struct {
	W io.Writer
	// NoSummary: the run prints no summary, so the rows of a program
	// replaced on the address are said to be in its own lines.
	NoSummary  bool
	down       bool
	earlier    int    // programs replaced on the address, at the last live sample
	outOfRange int64  // the newest sample's Link.OutOfRange
	remote     string // where they came from
	notice     string // the link's Notice last said
}

// Skip reports whether s is a disconnected marker (to write no line for),
// saying so once per break, that the link is back at the next sample (to
// another program when it is one: Earlier grew), and the link's Notice
// when it changes.
func (l *Notes) Skip(s session.Snapshot) bool {
	switch {
	case !s.Disconnected.IsZero():
		switch {
		case s.Notice != "" && s.Notice != l.notice: // given up on: no reconnecting
			fmt.Fprintf(l.W, "offtop: %s\n", s.Notice)
		case !l.down && s.Notice == "":
			fmt.Fprintf(l.W, "offtop: disconnected from %s at %s; reconnecting every %v\n",
				s.Remote, s.Disconnected.Format("15:04:05"), RetryEvery)
		}
		l.down, l.notice = true, s.Notice
		return true
	case l.down && len(s.Earlier) > l.earlier:
		e := s.Earlier[len(s.Earlier)-1]
		where := "in the summary"
		if l.NoSummary {
			where = "in its own lines before"
		}
		fmt.Fprintf(l.W, "offtop: reconnected to %s: another program, pid %d (was pid %d); the sizes rows from here are its own, pid %d's are %s\n",
			s.Remote, s.PID, e.PID, e.PID, where)
		l.down = false
	case l.down:
		fmt.Fprintf(l.W, "offtop: reconnected to %s\n", s.Remote)
		l.down = false
	}
	l.earlier = len(s.Earlier)
	if s.OutOfRange > l.outOfRange {
		if l.outOfRange == 0 {
			fmt.Fprintf(l.W, "offtop: %s sent a figure out of its range (a share outside 0..1, a rate or time negative or past 1e15): written as null (unknown)\n", s.Remote)
		}
		l.outOfRange, l.remote = s.OutOfRange, s.Remote
	}
	if s.Notice != l.notice && s.Notice != "" {
		fmt.Fprintf(l.W, "offtop: %s\n", s.Notice)
	}
	l.notice = s.Notice
	return false
}

// End says, at the end of the run, how many figures were out of their
// range; nothing when none was.
func (l *Notes) End() {
	if l.outOfRange > 0 {
		fmt.Fprintf(l.W, "offtop: %d figures from %s were out of their range, written as null (unknown)\n", l.outOfRange, l.remote)
	}
}
