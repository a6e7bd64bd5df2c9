// Package peer identifies processes of this machine from /proc: when a
// process started, whether it holds the socket listening on a loopback
// address, and reads a token file only when it is what the agent writes.
// Where there is no /proc (every system but Linux) each answer is an
// error wrapping errors.ErrUnsupported.
package peer

import (
	"errors"
	"fmt"
	"net"
)

// MaxTokenBytes bounds a token file: a file larger is refused unread.
const MaxTokenBytes = 256

// Errors; match with errors.Is.
var (
	// ErrNotHeld: the socket listening on the address is not the
	// process's (or nothing listens there).
	ErrNotHeld = errors.New("not the process that listens there")
	// ErrTokenFile: the token file is not a token file the user's agent
	// wrote (not a regular file, a link, not the user's, not 0600, too
	// large, or not a token).
	ErrTokenFile = errors.New("not a token file")
)

// Process names one process: its pid and when it started (StartTicks).
type Process struct {
	PID   int
	Start uint64
}

func (p Process) String() string { return fmt.Sprintf("pid %d", p.PID) }

// Loopback returns addr as a TCP address when it is a loopback one, the
// only kind whose listener this machine can name.
func Loopback(addr net.Addr) (*net.TCPAddr, bool) {
	tcp, ok := addr.(*net.TCPAddr)
	return tcp, ok && tcp.IP.IsLoopback()
}

// ValidToken reports whether b is a token: 1..MaxTokenBytes bytes of
// letters, digits and -._~+/=, nothing that could end a header.
func ValidToken(b []byte) bool {
	if len(b) == 0 || len(b) > MaxTokenBytes {
		return false
	}
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c == '-', c == '.', c == '_', c == '~', c == '+', c == '/', c == '=':
		default:
			return false
		}
	}
	return true
}
