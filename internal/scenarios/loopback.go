package scenarios

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	guard "github.com/offtop/offtop/internal/crash"
)

// stopDeadline bounds how long Close lets requests in flight finish
// before it closes their connections.
const stopDeadline = 2 * time.Second

// loopback is an HTTP server of a scenario's own, shaped like
// net/http/httptest.Server: serveLoopback listens (on 127.0.0.1:0 unless
// given an address, --listen) and serves on that listener in one
// goroutine the loopback owns; Close shuts it down and returns only once
// that goroutine has. Used by server and io.
type loopback struct {
	// URL is the base URL, "http://127.0.0.1:port", no trailing slash.
	URL string
	ln  net.Listener
	srv *http.Server
	// served is closed when Serve has returned.
	served chan struct{}
}

// serveLoopback starts srv on addr ("" is 127.0.0.1:0, a free loopback
// port). onErr, when not nil, gets the error Serve ends with if it is not
// the normal end after Close. An error to listen is wrapped with name.
func serveLoopback(name, addr string, srv *http.Server, onErr func(error)) (*loopback, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: listen: %w", name, err)
	}
	if srv.ReadHeaderTimeout == 0 {
		srv.ReadHeaderTimeout = 5 * time.Second
	}
	l := &loopback{URL: "http://" + ln.Addr().String(), ln: ln, srv: srv, served: make(chan struct{})}
	go func() {
		defer guard.Recover() // a bug here reaches offtop's crash handler: terminal restored
		defer close(l.served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && onErr != nil {
			onErr(err)
		}
	}()
	return l, nil
}

// Addr is the address the server listens on, "127.0.0.1:port".
func (l *loopback) Addr() string { return l.ln.Addr().String() }

// Close stops accepting, lets the requests in flight finish for up to
// stopDeadline, then closes every connection, and waits for the serving
// goroutine. Safe twice.
func (l *loopback) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), stopDeadline)
	defer cancel()
	if err := l.srv.Shutdown(ctx); err != nil {
		l.srv.Close()
	}
	<-l.served
}
