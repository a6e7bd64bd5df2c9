package load

import (
	"context"
	"net"
	"sync"
)

// conns are a load's open connections, so Stop can cut the requests in
// flight.
type conns struct {
	mu     sync.Mutex
	open   map[net.Conn]bool
	closed bool
	d      net.Dialer
}

func (c *conns) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := c.d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		conn.Close()
		return nil, net.ErrClosed
	}
	tc := &trackedConn{Conn: conn, c: c}
	c.open[tc] = true
	return tc, nil
}

func (c *conns) closeAll() {
	c.mu.Lock()
	c.closed = true
	open := c.open
	c.open = map[net.Conn]bool{}
	c.mu.Unlock()
	for conn := range open {
		conn.Close()
	}
}

// trackedConn leaves its set when closed.
type trackedConn struct {
	net.Conn
	c    *conns
	once sync.Once
}

func (t *trackedConn) Close() error {
	t.once.Do(func() {
		t.c.mu.Lock()
		delete(t.c.open, t)
		t.c.mu.Unlock()
	})
	return t.Conn.Close()
}
