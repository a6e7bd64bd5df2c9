package agent

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"time"
)

// errUnread: a sample written to a stream client had not left the
// socket ClientTimeout after it was written.
var errUnread = errors.New("agent: stream client takes no samples")

// sent is one sample written to a stream client: the byte offset it ends
// at on the connection, and when it was written.
type sent struct {
	end int64
	at  time.Time
}

// streamConn is a stream client's connection taken from the server
// (Hijack), so that what waits in the sockets counts: the kernel's send
// buffer is ConnWriteBuffer whatever the server, and a sample the client
// has not read within timeout (unread: still in this end's send queue or
// in the client's receive buffer, where the system tells) drops the
// client, as a write that does not finish within it does.
type streamConn struct {
	conn    net.Conn     // written to (a *tls.Conn over TLS)
	tcp     *net.TCPConn // the socket under it; nil when not TCP
	timeout time.Duration
	now     func() time.Time
	written int64  // bytes written, the header's included
	wmax    uint32 // the widest receive window the client offered
	pending []sent // written, not yet known to be read
}

// hijackStream takes w's connection and writes the stream's response
// header on it; false when the server cannot give it (HTTP/2, a test
// recorder): the caller writes through w instead.
func hijackStream(w http.ResponseWriter, timeout time.Duration, now func() time.Time) (*streamConn, <-chan struct{}, bool) {
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, nil, false
	}
	_ = conn.SetDeadline(time.Time{}) // the server's ReadTimeout no longer ends it
	s := &streamConn{conn: conn, timeout: timeout, now: now}
	under := conn
	if tc, ok := conn.(*tls.Conn); ok {
		under = tc.NetConn()
	}
	if tc, ok := under.(*net.TCPConn); ok {
		s.tcp = tc
		_ = tc.SetWriteBuffer(ConnWriteBuffer)
	}
	// The client's side: its close ends the stream. Read and dropped.
	gone := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, brw.Reader)
		close(gone)
	}()
	const head = "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
	_ = s.write([]byte(head)) // an error here is the first line's too
	return s, gone, true
}

// write sends line within the timeout, then fails (errUnread) when the
// oldest sample the client has not read was written more than the
// timeout ago.
func (s *streamConn) write(line []byte) error {
	now := s.now()
	_ = s.conn.SetWriteDeadline(now.Add(s.timeout))
	if _, err := s.conn.Write(line); err != nil {
		return err
	}
	s.written += int64(len(line))
	s.pending = append(s.pending, sent{s.written, now})
	q, ok := unread(s.tcp, &s.wmax)
	if !ok { // the system does not tell: the write deadline alone
		s.pending = s.pending[:0]
		return nil
	}
	read := s.written - q
	i := 0
	for i < len(s.pending) && s.pending[i].end <= read {
		i++
	}
	s.pending = s.pending[i:]
	if len(s.pending) > 0 && now.Sub(s.pending[0].at) > s.timeout {
		return errUnread
	}
	return nil
}

func (s *streamConn) Close() error { return s.conn.Close() }
