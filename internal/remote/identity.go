package remote

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/internal/peer"
)

// peerID is the process an agent was found to be: checked (its listener
// is that process's, at addr) or only as it says.
type peerID struct {
	proc    peer.Process
	checked bool         // proc holds the listener at addr
	live    bool         // proc runs: its pid started at its Start (/proc/PID/stat)
	blind   bool         // nothing can be checked: not on loopback, or no /proc
	addr    *net.TCPAddr // the address checked; nil unless checked
	seen    bool         // false before the first connect
}

// identify is the process the agent that answered info over a connection
// to raddr is: checked when this machine can tell (a loopback address, on
// Linux, the pid's listener), else as it says, with why not, and whether
// its pid runs with the start it says (live) or nothing can be told (blind).
func identify(info agent.Info, raddr net.Addr) (peerID, string) {
	says := peerID{proc: peer.Process{PID: info.PID, Start: info.StartTicks}, seen: true}
	tcp, ok := peer.Loopback(raddr)
	if !ok {
		says.blind = true
		return says, "the agent is not on a loopback address of this machine"
	}
	st, err := peer.StartTicks(info.PID)
	if errors.Is(err, errors.ErrUnsupported) {
		says.blind = true
		return says, err.Error()
	}
	if errors.Is(err, os.ErrNotExist) {
		return says, fmt.Sprintf("no pid %d runs on this machine", info.PID)
	}
	if err != nil {
		return says, fmt.Sprintf("pid %d: %v", info.PID, err)
	}
	if info.StartTicks != st {
		return says, fmt.Sprintf("pid %d started at another time than the agent says", info.PID)
	}
	says.live = true
	p := peer.Process{PID: info.PID, Start: st}
	if err := peer.HoldsListener(p, tcp); err != nil {
		return says, err.Error()
	}
	return peerID{proc: p, checked: true, live: true, addr: tcp, seen: true}, ""
}

// sameAs reports whether id, found after a reconnect, is shown to be the
// process was: the same pid and start claimed, that pid running with
// that start, and holding the listener if was was checked to. Where
// nothing can be checked (blind), only a claim unchanged with a token
// given (given) counts as the same.
func (id peerID) sameAs(was peerID, given bool) bool {
	switch {
	case id.proc != was.proc:
		return false
	case id.blind:
		return given && !was.checked
	}
	return id.live && (id.checked || !was.checked)
}

// tokenFor is the token to send to id (the one given, or its token
// file's) and, when there is none, why.
func (c *Client) tokenFor(info agent.Info, id peerID, why string, same bool) (string, string) {
	switch {
	case c.token0 != "" && same:
		return c.token0, ""
	case c.token0 != "":
		return "", "the --token given was for another process"
	case !info.Control:
		return "", ""
	case !id.checked:
		return "", fmt.Sprintf("not sure the agent at %s is pid %d (%s)", c.addr, info.PID, why)
	}
	tok, err := peer.ReadTokenOf(id.proc, filepath.Join(c.dir, agent.TokenFileName(id.proc.PID, id.proc.Start)))
	if err != nil {
		return "", fmt.Sprintf("no token file of pid %d to read (%v)", id.proc.PID, err)
	}
	return tok, ""
}

// changedNotice says that the agent at addr is not the process was, and
// what control is left.
func changedNotice(addr string, was, now peerID, token bool, why string) string {
	at := time.Now().Format("15:04:05")
	what := fmt.Sprintf("%s is another process since %s: pid %d (was pid %d)", addr, at, now.proc.PID, was.proc.PID)
	switch {
	case now.proc.PID == was.proc.PID && !now.live && !now.blind:
		what = fmt.Sprintf("%s is another process since %s: pid %d is gone", addr, at, was.proc.PID)
	case now.proc.PID == was.proc.PID && !now.checked:
		what = fmt.Sprintf("%s could not be checked to be pid %d since %s", addr, was.proc.PID, at)
	case now.proc.PID == was.proc.PID:
		what = fmt.Sprintf("%s is another process since %s: pid %d again, started anew", addr, at, now.proc.PID)
	}
	switch {
	case token:
		return what + "; its own token file read"
	case why == "":
		return what
	}
	return what + ": no token sent (" + why + ")"
}
