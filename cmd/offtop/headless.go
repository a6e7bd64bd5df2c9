package main

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/offtop/offtop/internal/jobctl"
	"github.com/offtop/offtop/internal/jsonenc"
	"github.com/offtop/offtop/internal/remote"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/ui"
)

// headless is the front end of --headless: one JSON object per sample on
// w (JSON Lines), the summary on stderr (stdout stays JSON Lines). The
// session's last sample, taken as it closes, is the last line, marked
// final (its interval figures over the whole run); with the session not
// closed within stopGrace, the summary of the samples so far. A closed
// stdout (offtop --headless | head -1) ends the run quietly. A terminal
// among stdin, stdout and stderr that hangs up ends the run as SIGHUP
// does.
type headless struct {
	r      *runner
	stderr io.Writer
	w      io.Writer
	line   []byte // the line being written, kept for the next
	link   linkNotes
	// links are a fleet's notes, one per address, nil for one process;
	// a fleet's lines start with their address (fleetLine).
	links  map[string]*linkNotes
	werr   error         // the first write error; no lines after it (the reader's goroutine)
	failed chan struct{} // closed at werr
	stop   chan struct{} // closed by quit
	once   sync.Once
}

// linkNotes says on stderr when an attached run's stream breaks and is
// back.
type linkNotes = remote.Notes

func newHeadless(r *runner, w, stderr io.Writer) *headless {
	r.hup = jobctl.WatchTerminal(os.Stdin, w, stderr)
	h := &headless{r: r, stderr: stderr, w: w, link: linkNotes{W: stderr, NoSummary: r.o.noSummary},
		failed: make(chan struct{}), stop: make(chan struct{})}
	if r.o.attach != nil && r.o.attach.fleet != nil {
		h.links = map[string]*linkNotes{}
	}
	return h
}

func (h *headless) show() error {
	select {
	case <-h.stop:
	case <-h.failed:
	case <-h.r.cr.Crashed():
	}
	return nil
}

func (h *headless) quit() { h.once.Do(func() { close(h.stop) }) }

// press applies a --keys step as the dashboard would: q and ctrl+c quit;
// a script's out-of-range step is ignored, as a key would be.
func (h *headless) press(key string) {
	a, q, ok := ui.ActionFor(key)
	switch {
	case q:
		h.quit()
	case ok:
		_ = session.Apply(h.r.src, a)
	}
}

// sampled writes snap as a line; attached, no line while the program is
// gone (linkNotes says so).
func (h *headless) sampled(snap session.Snapshot) {
	if h.notes(snap.Remote).Skip(snap) || h.werr != nil {
		return
	}
	if h.links != nil {
		h.line = appendFleetLine(h.line[:0], &snap)
	} else {
		h.line = append(snap.AppendJSON(h.line[:0]), '\n')
	}
	if _, h.werr = h.w.Write(h.line); h.werr != nil {
		close(h.failed)
	}
}

func (h *headless) endedBy() os.Signal { return nil }

// finish writes the summary unless stdout refused the lines (then that
// one line, no summary).
func (h *headless) finish(_ bool, sig os.Signal, _ error) error {
	err := asSignalError(sig)
	if err == nil && h.werr != nil {
		err = writeErr(h.werr)
	}
	if h.werr != nil && err != nil {
		return err
	}
	if !h.r.o.noSummary {
		_ = h.r.writeSummary(h.stderr, nil)
	}
	h.link.End()
	for _, l := range h.links {
		l.End()
	}
	return err
}

// notes is the link notes of the process at addr.
func (h *headless) notes(addr string) *linkNotes {
	if h.links == nil {
		return &h.link
	}
	l := h.links[addr]
	if l == nil {
		l = &linkNotes{W: h.stderr, NoSummary: h.r.o.noSummary}
		h.links[addr] = l
	}
	return l
}

// appendFleetLine appends snap as one line of a fleet's JSON Lines: the
// line of one process with "addr" (the process's ADDR as given) first.
func appendFleetLine(b []byte, snap *session.Snapshot) []byte {
	b = jsonenc.String(jsonenc.Key(append(b, '{'), "addr"), snap.Remote)
	b = append(b, ',')
	start := len(b)
	b = snap.AppendJSON(b)
	b = append(b[:start], b[start+1:]...) // its opening brace
	return append(b, '\n')
}

func (h *headless) release() {}

// writeErr treats a closed pipe as the reader's wish to stop.
func writeErr(err error) error {
	if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
