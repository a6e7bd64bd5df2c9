//go:build !linux

package agent

import "net"

// unread cannot be told here: false.
func unread(*net.TCPConn, *uint32) (int64, bool) { return 0, false }
