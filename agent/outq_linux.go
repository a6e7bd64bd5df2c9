package agent

import (
	"net"

	"golang.org/x/sys/unix"
)

// unread is how many of the bytes written to c the peer's program has
// not read yet, as far as this end can see: those still in c's send
// queue (SIOCOUTQ) and those the peer's kernel holds, the peer's receive
// window below the widest it has offered (wmax, kept up to date; TCP_INFO
// tcpi_snd_wnd). false when the system does not tell.
func unread(c *net.TCPConn, wmax *uint32) (int64, bool) {
	if c == nil {
		return 0, false
	}
	rc, err := c.SyscallConn()
	if err != nil {
		return 0, false
	}
	var q int
	var info *unix.TCPInfo
	var qerr, ierr error
	if err := rc.Control(func(fd uintptr) {
		q, qerr = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ)
		info, ierr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
	}); err != nil || qerr != nil || ierr != nil {
		return 0, false
	}
	*wmax = max(*wmax, info.Snd_wnd)
	return int64(q) + int64(*wmax-info.Snd_wnd), true
}
