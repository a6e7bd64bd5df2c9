package agent

import (
	"sync"
	"sync/atomic"

	"github.com/offtop/offtop/internal/session"
)

// hub hands each sample, encoded once, to every stream client without
// waiting for any: a client with ClientBuffer lines or ClientBytes
// waiting is dropped.
type hub struct {
	latest func() session.Snapshot

	mu      sync.Mutex // guards clients and closed
	clients map[*client]struct{}
	closed  bool
}

// client is one stream: lines waiting for it (bytes: their length), and
// dropped, closed when the hub lets it go (too slow, or the agent
// closing).
type client struct {
	lines   chan []byte
	bytes   atomic.Int64
	dropped chan struct{}
}

func newHub(latest func() session.Snapshot) *hub {
	return &hub{latest: latest, clients: map[*client]struct{}{}}
}

// line encodes one sample as a JSON Lines line.
func line(s session.Snapshot) []byte {
	return append(s.AppendJSON(make([]byte, 0, 4096)), '\n')
}

// join adds a client and returns it with the line to send first (the
// newest sample); false when MaxClients are served or the hub has closed.
func (h *hub) join() (*client, []byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || len(h.clients) >= MaxClients {
		return nil, nil, false
	}
	c := &client{lines: make(chan []byte, ClientBuffer), dropped: make(chan struct{})}
	h.clients[c] = struct{}{}
	return c, line(h.latest()), true
}

// leave removes c (its stream ended).
func (h *hub) leave(c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropLocked(c)
}

func (h *hub) dropLocked(c *client) {
	if _, ok := h.clients[c]; ok {
		delete(h.clients, c)
		close(c.dropped)
	}
}

// run hands out every sample until samples is closed, then drops every
// client.
func (h *hub) run(samples <-chan session.Snapshot) {
	for s := range samples {
		h.mu.Lock()
		if len(h.clients) > 0 { // no client: no encoding
			b := line(s)
			for c := range h.clients {
				if c.bytes.Add(int64(len(b))) > ClientBytes {
					h.dropLocked(c)
					continue
				}
				select {
				case c.lines <- b:
				default: // ClientBuffer lines behind: let it go
					h.dropLocked(c)
				}
			}
		}
		h.mu.Unlock()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for c := range h.clients {
		h.dropLocked(c)
	}
}
