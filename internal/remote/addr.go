package remote

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/offtop/offtop/agent"
)

// BaseURL turns ADDR as typed (host:port, or an http URL, with or without
// the agent's path) into the agent's root URL. A host:port needs its
// port; a URL may leave it out (80 for http, 443 for https). A port is a
// decimal number in 1..65535. Errors are ErrAddress and say what is wrong
// without quoting addr (the caller quotes it).
func BaseURL(addr string) (*url.URL, error) {
	raw := addr
	scheme, rest, hasScheme := strings.Cut(addr, "://")
	if !hasScheme {
		raw, rest = "http://"+addr, addr
	} else if scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf("%w: not an http URL", ErrAddress)
	}
	hostport := rest
	if i := strings.IndexAny(hostport, "/?#"); i >= 0 {
		hostport = hostport[:i]
	}
	if i := strings.LastIndex(hostport, "@"); i >= 0 {
		hostport = hostport[i+1:]
	}
	if err := checkHostPort(hostport, !hasScheme); err != nil {
		return nil, err
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%w: not host:port or an http URL", ErrAddress)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = agent.DefaultPath
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// checkHostPort checks the host[:port] of an address: a host, and a port
// in 1..65535 when there is one (needPort: there must be).
func checkHostPort(hp string, needPort bool) error {
	if hp == "" {
		return fmt.Errorf("%w: no host", ErrAddress)
	}
	_, port, err := net.SplitHostPort(hp)
	if err != nil {
		var ae *net.AddrError
		if !errors.As(err, &ae) || ae.Err != "missing port in address" {
			return fmt.Errorf("%w: not host:port or an http URL", ErrAddress)
		}
		if needPort {
			return fmt.Errorf("%w: no port (want host:port, e.g. 127.0.0.1:7070)", ErrAddress)
		}
		return nil
	}
	if port == "" {
		return fmt.Errorf("%w: no port after the colon (want host:port, e.g. 127.0.0.1:7070)", ErrAddress)
	}
	if strings.Trim(port, "0123456789") != "" {
		return fmt.Errorf("%w: port not a number", ErrAddress)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%w: port out of range 1..65535", ErrAddress)
	}
	return nil
}
