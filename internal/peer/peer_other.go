//go:build !linux

package peer

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// Without /proc no process can be named: attach needs --token, and the
// agent's stale token files are not found.

// StartTicks is 0 and an error wrapping errors.ErrUnsupported.
func StartTicks(pid int) (uint64, error) {
	return 0, fmt.Errorf("start time of pid %d: %w", pid, errors.ErrUnsupported)
}

// HoldsListener is an error wrapping ErrNotHeld and errors.ErrUnsupported.
func HoldsListener(p Process, addr *net.TCPAddr) error {
	return fmt.Errorf("%w: %w: no /proc to find who listens on %s", ErrNotHeld, errors.ErrUnsupported, addr)
}

// ReadToken is an error wrapping ErrTokenFile and errors.ErrUnsupported.
func ReadToken(path string) (string, error) {
	return "", fmt.Errorf("%w: %w: %s", ErrTokenFile, errors.ErrUnsupported, path)
}

// Alive cannot be told: known is false.
func Alive(p Process) (alive, known bool) { return false, false }

// Mine is false: no file is known to be the user's.
func Mine(fi os.FileInfo) bool { return false }

// UID is an error wrapping errors.ErrUnsupported.
func UID(pid int) (int, error) {
	return 0, fmt.Errorf("uid of pid %d: %w", pid, errors.ErrUnsupported)
}

// ReadTokenOf is an error wrapping ErrTokenFile and errors.ErrUnsupported.
func ReadTokenOf(p Process, path string) (string, error) { return ReadToken(path) }
