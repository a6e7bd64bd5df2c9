package agent

import (
	"fmt"
	"net"
	"net/http"
	"time"
)

// CheckLoopback returns nil when addr (host:port) names a loopback address
// (127.0.0.0/8, ::1 or localhost), else an error wrapping ErrNotLoopback:
// an empty host (":7070") is every interface.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("agent: address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w: %q", ErrNotLoopback, addr)
}

// ConnWriteBuffer is the kernel send buffer of each connection Listen's
// server accepts, and of each stream's connection wherever the agent is
// mounted: with ClientBytes, what one stream client that stops reading
// may hold on this end (the OS default grows to megabytes).
const ConnWriteBuffer = 64 << 10

// Listen starts an agent (New) and serves it at DefaultPath on its own
// HTTP server on addr ("127.0.0.1:0" picks a port: see Addr). addr must be
// loopback unless o.AllowRemote (ErrNotLoopback). Close stops the server.
func Listen(addr string, o Options) (*Agent, error) {
	if !o.AllowRemote {
		if err := CheckLoopback(addr); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	a, err := New(o)
	if err != nil {
		ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	a.Mount(mux)
	a.ln = ln
	a.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second,
		ConnState: func(c net.Conn, st http.ConnState) {
			if tc, ok := c.(*net.TCPConn); ok && st == http.StateNew {
				_ = tc.SetWriteBuffer(ConnWriteBuffer) // a client that stops reading blocks its writes soon
			}
		}}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}
