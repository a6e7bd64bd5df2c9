package scenarios

import (
	"errors"
	"net"
	"os"
	"syscall"

	"github.com/offtop/offtop/internal/decimal"
)

// CheckListen checks an address for the loopback servers (--listen),
// HOST:PORT with PORT 0..65535, and
// gives a missing host as 127.0.0.1. HOST must be loopback (an IP, or a
// name whose every address is) unless remote; and the address must be
// one this machine can listen on now: it is tried (and closed) here, so a
// port in use, an address not on this machine or a host not found is
// said before the scenario starts, reason first, not as its failure to
// start. The error is the reason alone ("address already in use").
func CheckListen(s string, remote bool) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", errString("not HOST:PORT like 127.0.0.1:17080")
	}
	if p, err := decimal.Int(port); err != nil || p < 0 || p > 65535 {
		return "", errString("port not a number 0..65535")
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !remote {
		ips, err := net.LookupIP(host)
		if err != nil || len(ips) == 0 {
			return "", errString("host not found")
		}
		for _, ip := range ips {
			if !ip.IsLoopback() {
				return "", errString("not a loopback address (--allow-remote to listen where other machines reach)")
			}
		}
	}
	addr := net.JoinHostPort(host, port)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		var dns *net.DNSError
		switch {
		case errors.Is(err, syscall.EADDRINUSE):
			return "", errString("address already in use")
		case errors.Is(err, syscall.EADDRNOTAVAIL):
			return "", errString("address not on this machine")
		case errors.Is(err, syscall.EACCES):
			return "", errString("port not allowed (below 1024 needs privileges)")
		case errors.As(err, &dns):
			return "", errString("host not found")
		}
		var se *os.SyscallError
		if errors.As(err, &se) {
			return "", errString(se.Err.Error())
		}
		return "", errString("cannot listen")
	}
	ln.Close()
	return addr, nil
}

// errString is an error that is its message.
type errString string

func (e errString) Error() string { return string(e) }
