package agent

import (
	"cmp"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/pool"
)

// DefaultPath is where Mount serves the agent, beside /debug/pprof/ and
// /debug/vars.
const DefaultPath = "/debug/offtop/"

// Limits of what a client may cost the program.
const (
	// MaxBodyBytes bounds an action's request body.
	MaxBodyBytes = 4 << 10
	// ClientBuffer is how many encoded samples wait for one client, and
	// ClientBytes how many bytes; a client further behind is dropped.
	ClientBuffer = 16
	ClientBytes  = 1 << 20
	// WriteTimeout is Options.ClientTimeout's default.
	WriteTimeout = 5 * time.Second
	// MaxClients bounds the streams served at once; one more gets 503.
	MaxClients = 16
)

// SchemaVersion is the version of the stream's objects (their schema
// field): it changes when a field changes meaning or goes; adding a field
// does not.
const SchemaVersion = 1

// SchemaVersion is the session's: the build fails if they differ (a
// negative constant does not convert to uint).
const _ = uint(SchemaVersion-session.SchemaVersion) + uint(session.SchemaVersion-SchemaVersion)

// Errors of New and Listen; match with errors.Is.
var (
	// ErrNotLoopback: Listen was given an address that is not loopback
	// without Options.AllowRemote.
	ErrNotLoopback = errors.New("agent: address is not loopback (set AllowRemote to serve another)")
	// ErrNoPool: Control was asked with no Pool to resize.
	ErrNoPool = errors.New("agent: Control needs a Pool")
)

// Options configure an Agent. The zero value is usable: a program named
// "program" with no pool, the Loop probe on a goroutine of the agent's
// own, no control, loopback only, samples every 250 ms.
type Options struct {
	// Name is what the dashboard shows for the program.
	Name string
	// Pool is the program's pool: a *pool.Pool, or a *pool.Meter over a
	// pool of its own (package contrib/ants, contrib/pond). Its workers'
	// busy and on-CPU time, its queue and its tasks' latency are sampled,
	// and, with Control, it is resized by the dashboard's keys. nil: none.
	// The agent never closes it.
	Pool pool.Accounted
	// Post runs fn later on the program's single-goroutine loop, without
	// blocking: the Loop probe is posted there every Resolution and reads
	// how late that loop runs things. nil: a goroutine of the agent's own.
	Post func(fn func())
	// Control lets an attached offtop with the token resize Pool, change
	// GOMAXPROCS and reset the figures. Needs Pool.
	Control bool
	// AllowRemote serves requests that arrive on a non-loopback address,
	// and lets Listen bind one. Off, such a request gets 403.
	AllowRemote bool
	// Interval is the sampling period (250 ms when 0; at least 1 ms),
	// Resolution the Loop probe's (10 ms when 0; at least 100 us), Window
	// the span of sliding percentiles (5 s when 0; at least Interval).
	// New refuses a value outside these bounds.
	Interval, Resolution, Window time.Duration
	// ClientTimeout bounds how long a stream client may leave a sample
	// unread (WriteTimeout when 0): see the package doc, Security.
	ClientTimeout time.Duration
	// TokenDir is where the token file is made (DefaultTokenDir when
	// empty). attach looks in its own DefaultTokenDir only: another dir
	// makes it need --token.
	TokenDir string
	// Logf logs the token file's path (log.Printf when nil).
	Logf func(format string, args ...any)
}

// Info is what GET DefaultPath answers: enough for a client to know it
// speaks to an offtop agent of its schema, and which process it is. It
// names no path: attach finds the token file itself (see Security).
type Info struct {
	Agent   string `json:"agent"`   // always "offtop"
	Schema  int    `json:"schema"`  // SchemaVersion of the stream's objects
	Name    string `json:"name"`    // Options.Name (the stream's scenario field)
	PID     int    `json:"pid"`     // the program's process id
	Control bool   `json:"control"` // Options.Control: actions are taken, with the token
	// StartTicks is when the program started: field 22 of /proc/PID/stat,
	// clock ticks after boot; 0 where there is no /proc. With PID it
	// names the process even after its pid is reused.
	StartTicks uint64 `json:"start_ticks"`
	// IntervalMS is the sampling period: a stream line comes this often.
	IntervalMS int64 `json:"interval_ms"`
}

// Agent samples the program and serves its Snapshot stream. Make one with
// New or Listen.
type Agent struct {
	o     Options
	s     *session.Session
	info  Info
	token string
	file  string // the token file's path; "" without Control
	hub   *hub
	ep    *endpoints   // Middleware's routes
	srv   *http.Server // Listen's, nil after New
	ln    net.Listener

	closeOnce sync.Once
	done      chan struct{} // closed when the hub has stopped
}

// New starts sampling the program as o says and, with o.Control, makes the
// token file and logs its path. Serve it with Mount or Handler; stop it
// with Close. It fails with ErrNoPool for Control without a Pool, and with
// an error for an Interval, Resolution or Window out of bounds (see
// Options) or a token file it cannot make.
func New(o Options) (*Agent, error) {
	engine := accounted(o.Pool)
	if o.Control && engine == nil {
		return nil, ErrNoPool
	}
	if o.Logf == nil {
		o.Logf = log.Printf
	}
	ep := newEndpoints(cmp.Or(o.Window, session.DefaultWindow), nil)
	s, err := session.New(session.Config{
		Interval: o.Interval, Resolution: o.Resolution, Window: o.Window,
		Program: &session.Program{Name: o.Name, Pool: engine, Post: o.Post, Endpoints: ep.read},
	})
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	ep.served = s.ObserveServed // before any Middleware: a is not out yet
	a := &Agent{o: o, s: s, ep: ep, done: make(chan struct{})}
	snap := s.Snapshot()
	me := self()
	a.info = Info{Agent: "offtop", Schema: SchemaVersion, Name: snap.Scenario, PID: me.PID, StartTicks: me.Start,
		Control: o.Control, IntervalMS: time.Duration(snap.Interval).Milliseconds()}
	if o.Control {
		path, tok, err := acquireToken(o.TokenDir)
		if err != nil {
			s.Close()
			return nil, err
		}
		a.file, a.token = path, tok
		o.Logf("offtop agent: control token in %s (mode 0600)", path)
	}
	a.hub = newHub(s.Snapshot)
	go func() {
		defer close(a.done)
		a.hub.run(s.Samples())
	}()
	return a, nil
}

// accounted is p, or nil when p holds a nil *pool.Pool or *pool.Meter.
func accounted(p pool.Accounted) pool.Accounted {
	switch q := p.(type) {
	case *pool.Pool:
		if q == nil {
			return nil
		}
	case *pool.Meter:
		if q == nil {
			return nil
		}
	}
	return p
}

// Info is what the agent says about itself at DefaultPath.
func (a *Agent) Info() Info { return a.info }

// TokenFile is the token file's path (DefaultTokenDir or
// Options.TokenDir, then TokenFileName); "" without Control.
func (a *Agent) TokenFile() string { return a.file }

// Mount serves the agent at DefaultPath on mux.
func (a *Agent) Mount(mux *http.ServeMux) { mux.Handle(DefaultPath, a.Handler()) }

// Handler serves the agent's endpoints (see the package doc) at
// DefaultPath; it answers 404 elsewhere.
func (a *Agent) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.o.AllowRemote && !fromLoopback(r) {
			http.Error(w, "offtop agent: loopback only", http.StatusForbidden)
			return
		}
		switch strings.TrimPrefix(r.URL.Path, DefaultPath) {
		case "":
			a.serveInfo(w, r)
		case "stream":
			a.serveStream(w, r)
		case "action":
			a.serveAction(w, r)
		case "control":
			a.serveControl(w, r)
		default:
			a.serveMore(w, r) // MetricsPath, else 404
		}
	})
}

// fromLoopback reports whether r arrived on a loopback address of this
// host (the server's side of the connection).
func fromLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return addr.Network() == "unix" // a socket file: as local as it gets
	}
	return tcp.IP.IsLoopback()
}

func (a *Agent) serveInfo(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(a.info)
}

func (a *Agent) serveStream(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	c, first, ok := a.hub.join()
	if !ok {
		http.Error(w, "offtop agent: too many clients, or closed", http.StatusServiceUnavailable)
		return
	}
	defer a.hub.leave(c)
	timeout := a.o.ClientTimeout
	if timeout <= 0 {
		timeout = WriteTimeout
	}
	var write func([]byte) bool
	gone := r.Context().Done()
	if sc, closed, ok := hijackStream(w, timeout, time.Now); ok {
		defer sc.Close()
		gone = closed
		write = func(line []byte) bool { return sc.write(line) == nil }
	} else { // HTTP/2: its flow control bounds what waits for the client
		rc := http.NewResponseController(w)
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		write = func(line []byte) bool {
			_ = rc.SetWriteDeadline(time.Now().Add(timeout))
			if _, err := w.Write(line); err != nil {
				return false
			}
			return rc.Flush() == nil
		}
	}
	if !write(first) {
		return
	}
	for {
		select {
		case line := <-c.lines:
			c.bytes.Add(-int64(len(line)))
			if !write(line) {
				return
			}
		case <-c.dropped:
			return
		case <-gone:
			return
		}
	}
}

// authorized answers 403 without control and 401 without the right
// token, and reports whether the request may control the program.
func (a *Agent) authorized(w http.ResponseWriter, r *http.Request) bool {
	if !a.o.Control {
		http.Error(w, "offtop agent: this program does not take control (agent.Options.Control)", http.StatusForbidden)
		return false
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(tok), []byte(a.token)) != 1 {
		http.Error(w, "offtop agent: no token, or a wrong one", http.StatusUnauthorized)
		return false
	}
	return true
}

// serveControl answers 204 when the request may control the program, so
// a client can know before its first key.
func (a *Agent) serveControl(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	if a.authorized(w, r) {
		w.WriteHeader(http.StatusNoContent)
	}
}

func (a *Agent) serveAction(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if !a.authorized(w, r) {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "offtop agent: body too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "offtop agent: "+err.Error(), http.StatusBadRequest)
		return
	}
	var act session.Action
	if err := json.Unmarshal(body, &act); err != nil {
		http.Error(w, "offtop agent: not an action: "+err.Error(), http.StatusBadRequest)
		return
	}
	if err := a.s.Apply(act); err != nil {
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, "{\"ok\":true}\n")
}

// Addr is the address Listen bound; nil after New.
func (a *Agent) Addr() net.Addr {
	if a.ln == nil {
		return nil
	}
	return a.ln.Addr()
}

// Close stops Listen's server (if any), ends every stream, stops the
// sampler and the probes, and removes the token file. It leaves the pool
// to its owner. Safe to call twice; returns when all is down.
func (a *Agent) Close() {
	a.closeOnce.Do(func() {
		if a.srv != nil {
			_ = a.srv.Close()
		}
		a.s.Close() // closes Samples: the hub drops every client and returns
		<-a.done
		if a.file != "" {
			releaseToken(a.file)
		}
	})
}
