// Package remote is the attach client: a session.Source that reads an
// offtop agent's Snapshot stream over HTTP (package agent) and posts
// Actions to it, so the dashboard and the headless writer run against
// another program exactly as against an in-process session.
//
// When the stream breaks, the client's Snapshot says Disconnected (with
// the time) and carries no figures; it reconnects every RetryEvery, and a
// program that comes back (a new process on the same address: new token,
// new figures) is read again, its token file found again unless a token
// was given.
//
// The token goes only to the process it is for. Without Options.Token
// the client finds the agent's token file itself, never at a path the
// agent names: on Linux, when the agent is on a loopback address and the
// process it says it is (Info's pid and start_ticks) holds the socket
// listening there (/proc/net/tcp{,6} and /proc/PID/fd), it reads
// agent.DefaultTokenDir()/agent.TokenFileName(pid, start) if that process
// runs as this user and the file is a regular file of the user's, mode
// 0600, one name, at most peer.MaxTokenBytes (peer.ReadTokenOf);
// otherwise it sends no token and control needs Options.Token. Each
// connection that carries a token is checked again when it is made
// (pinned to the address checked, no keep-alive). After a reconnect the
// token is sent again only when the peer is shown to be the same process:
// the same pid and start claimed, that pid running with that start, and
// holding the listener if the first peer did; where nothing can be
// checked (not loopback, no /proc), only Options.Token, to an unchanged
// claim. Otherwise Snapshot's Notice says it is another process (a pid
// gone, or not checked), and the new process gets its own token file's
// token or none.
//
// Every read of the agent is bounded in time and size (infoTimeout,
// maxInfo, StaleAfter, maxStale, maxLine, controlTimeout), and every
// string from it is written out without control characters
// (session.Clean, in the Decoder and in refusals).
package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"syscall"
	"time"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/internal/peer"
	"github.com/offtop/offtop/internal/session"
)

// RetryEvery is how often a broken stream is tried again.
const RetryEvery = 500 * time.Millisecond

// Errors of Dial, each naming a cause; match with errors.Is.
var (
	// ErrAddress: ADDR is not an address (BaseURL).
	ErrAddress     = errors.New("ADDR")
	ErrUnreachable = errors.New("unreachable")
	ErrNotAgent    = errors.New("not an offtop agent")
	ErrSchema      = errors.New("another schema version")
	// ErrRefused: the agent refused an action (no control, no token, a
	// wrong one).
	ErrRefused = errors.New("control refused")
)

// Options configure Dial.
type Options struct {
	// Token is the agent's control token; empty: find the agent's token
	// file on this machine (see the package doc), if it can be read.
	Token string
	// TokenDir is where token files are looked for (agent.DefaultTokenDir
	// when empty).
	TokenDir string
}

// Client is a session.Source reading one agent. Make it with Dial.
type Client struct {
	base   *url.URL     // the agent's root, ending in agent.DefaultPath
	addr   string       // as the user wrote it, for the screen
	hc     *http.Client // the info and the stream: no token
	ctl    *http.Client // control requests: each connection checked (dialControl)
	token0 string       // the token given, "" to find it
	dir    string       // where token files are

	samples chan session.Snapshot
	actions chan posted
	// postMu orders Post against control's end: once shut is set no
	// action is queued, so every queued one gets its answer.
	postMu sync.Mutex
	shut   bool
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once

	mu     sync.Mutex // guards the fields below
	last   session.Snapshot
	info   agent.Info
	token  string
	peer   peerID // who the token is for
	why    string // why there is no token ("" with one)
	notice string // Snapshot's Notice
	// prog is the program read now (its identity and its newest rows);
	// earlier those read before it on the address, oldest first.
	prog    program
	earlier []session.EarlierProgram
	fresh   bool // the next line is a new stream's first
}

// program is what the client knows of the program it reads.
type program struct {
	seen         bool // a line of it was read
	pid          int
	since, until time.Time
	elapsed      session.Seconds
	sizes        session.SizeRows
}

// Dial checks that addr is an agent of this schema, opens its stream and
// returns a Client reading it. Errors name the cause (ErrAddress,
// ErrUnreachable, ErrNotAgent, ErrSchema).
func Dial(addr string, o Options) (*Client, error) { return DialContext(context.Background(), addr, o) }

// DialContext is Dial bounded by ctx as well: ctx ending stops the dial
// (an error), and later ends the Client's reading as Close does (Samples
// closes; Close must still be called).
func DialContext(ctx context.Context, addr string, o Options) (*Client, error) {
	base, err := BaseURL(addr)
	if err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: 2 * time.Second}
	// Neither client follows a redirect: the agent is the address given,
	// so a 3xx is an answer (not an agent's), never a hop elsewhere for its
	// checks, its token file or the token.
	hc := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext, ResponseHeaderTimeout: 5 * time.Second},
		CheckRedirect: noRedirect}
	ctl := &http.Client{Transport: &http.Transport{
		DialContext:           func(ctx context.Context, _, a string) (net.Conn, error) { return dialControl(ctx, dialer, a) },
		DisableKeepAlives:     true, // every connection that carries the token is checked when made
		ResponseHeaderTimeout: 5 * time.Second,
	}, CheckRedirect: noRedirect}
	dir := o.TokenDir
	if dir == "" {
		dir = agent.DefaultTokenDir()
	}
	c := &Client{base: base, addr: addr, hc: hc, ctl: ctl, token0: o.Token, dir: dir,
		samples: make(chan session.Snapshot, 1024), actions: make(chan posted, 64)}
	c.ctx, c.cancel = context.WithCancel(ctx)
	st, err := c.connect()
	if err != nil {
		c.cancel()
		return nil, err
	}
	var dec session.Decoder
	first := time.AfterFunc(st.stale, st.cancel) // a stream that never sends
	err = c.readLine(st, &dec)
	first.Stop()
	if err != nil { // the agent sends its newest sample at once
		st.Close()
		st.cancel()
		c.cancel()
		if errors.Is(err, ErrNotAgent) || errors.Is(err, ErrSchema) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: the stream ended before its first sample: %v", ErrNotAgent, err)
	}
	c.wg.Add(2)
	go c.read(st, &dec)
	go c.control()
	return c, nil
}

// noRedirect makes an http.Client return a redirect as the answer.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// stream is an open Snapshot stream.
type stream struct {
	*bufio.Reader
	io.Closer
	cancel context.CancelFunc // ends the request: a stream gone silent
	stale  time.Duration      // no line for this long: the stream is dead
}

// connect reads the agent's Info, finds who it is and the token, and
// opens the stream.
func (c *Client) connect() (stream, error) {
	info, raddr, err := c.fetchInfo()
	if err != nil {
		return stream{}, err
	}
	id, idWhy := identify(info, raddr)
	c.mu.Lock()
	was := c.peer
	c.mu.Unlock()
	same := !was.seen || id.sameAs(was, c.token0 != "")
	tok, why := c.tokenFor(info, id, idWhy, same)
	ctx, cancel := context.WithCancel(c.ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base.String()+"stream", nil)
	if err != nil {
		cancel()
		return stream{}, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		cancel()
		return stream{}, c.unreachable(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return stream{}, fmt.Errorf("%w: stream: %s", ErrNotAgent, session.Clean(resp.Status))
	}
	c.mu.Lock()
	c.info, c.token, c.peer, c.why = info, tok, id, why
	if !same {
		if idWhy != "" { // the short reason
			why = idWhy
		}
		c.notice = changedNotice(c.addr, was, id, tok != "", why)
	}
	c.mu.Unlock()
	stale := StaleAfter
	if iv := time.Duration(min(info.IntervalMS, int64(maxStale/time.Millisecond))) * time.Millisecond; 4*iv > stale {
		stale = min(4*iv, maxStale)
	}
	return stream{bufio.NewReaderSize(resp.Body, 64<<10), resp.Body, cancel, stale}, nil
}

// fetchInfo reads the agent's Info and the address it answered from.
func (c *Client) fetchInfo() (agent.Info, net.Addr, error) {
	var info agent.Info
	var raddr net.Addr
	ctx, cancel := context.WithTimeout(c.ctx, infoTimeout) // the answer and its body
	defer cancel()
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(ci httptrace.GotConnInfo) { raddr = ci.Conn.RemoteAddr() },
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base.String(), nil)
	if err != nil {
		return info, nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return info, nil, c.unreachable(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxInfo))
	if resp.StatusCode != http.StatusOK {
		return info, nil, fmt.Errorf("%w: %s answers %s", ErrNotAgent, c.base, session.Clean(resp.Status))
	}
	if err != nil {
		return info, nil, fmt.Errorf("%w: %s: its info: %v", ErrNotAgent, c.base, err)
	}
	if err := json.Unmarshal(b, &info); err != nil || info.Agent != "offtop" {
		return info, nil, fmt.Errorf("%w: %s does not answer as one", ErrNotAgent, c.base)
	}
	if info.Schema != session.SchemaVersion {
		return info, nil, fmt.Errorf("%w: the agent speaks schema %d, this offtop %d", ErrSchema, info.Schema, session.SchemaVersion)
	}
	return info, raddr, nil
}

func (c *Client) unreachable(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	hp := c.base.Host
	if c.base.Port() == "" { // a URL without its port
		port := "80"
		if c.base.Scheme == "https" {
			port = "443"
		}
		hp = net.JoinHostPort(c.base.Hostname(), port)
	}
	var de *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%w: nothing listens on %s", ErrUnreachable, hp)
	case errors.As(err, &de) && de.IsNotFound:
		return fmt.Errorf("%w: host not found: %s", ErrUnreachable, c.base.Hostname())
	}
	return fmt.Errorf("%w: %s: %v", ErrUnreachable, hp, err)
}

// Process is the process the agent said it is (its info's pid and start
// ticks) when it was last read.
func (c *Client) Process() peer.Process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.peer.proc
}

// Samples gets every sample read, and a Disconnected one when the stream
// breaks; closed by Close.
func (c *Client) Samples() <-chan session.Snapshot { return c.samples }

// Snapshot is the newest sample, or the Disconnected one.
func (c *Client) Snapshot() session.Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// Close stops reading and reconnecting, and closes Samples. Safe twice.
func (c *Client) Close() {
	c.once.Do(func() {
		c.cancel()
		c.wg.Wait()
	})
}

var _ session.Source = (*Client)(nil)
