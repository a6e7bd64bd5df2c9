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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	once    sync.Once

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

// peerID is the process an agent was found to be: checked (its listener
// is that process's, at addr) or only as it says.
type peerID struct {
	proc    peer.Process
	checked bool         // proc holds the listener at addr
	live    bool         // proc runs: its pid started at its Start (/proc/PID/stat)
	blind   bool         // nothing can be checked: not on loopback, or no /proc
	addr    *net.TCPAddr // the address checked; nil unless checked
	seen    bool         // false before the first connect
}

// controlPeer carries, in a control request's context, the peer its
// token is for: dialControl dials that address only and checks it.
type controlPeer struct{}

type posted struct {
	a   session.Action
	res chan error
}

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

// Dial checks that addr is an agent of this schema, opens its stream and
// returns a Client reading it. Errors name the cause (ErrAddress,
// ErrUnreachable, ErrNotAgent, ErrSchema).
func Dial(addr string, o Options) (*Client, error) {
	base, err := BaseURL(addr)
	if err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: 2 * time.Second}
	hc := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext, ResponseHeaderTimeout: 5 * time.Second}}
	ctl := &http.Client{Transport: &http.Transport{
		DialContext:           func(ctx context.Context, _, a string) (net.Conn, error) { return dialControl(ctx, dialer, a) },
		DisableKeepAlives:     true, // every connection that carries the token is checked when made
		ResponseHeaderTimeout: 5 * time.Second,
	}}
	dir := o.TokenDir
	if dir == "" {
		dir = agent.DefaultTokenDir()
	}
	c := &Client{base: base, addr: addr, hc: hc, ctl: ctl, token0: o.Token, dir: dir,
		samples: make(chan session.Snapshot, 1024), actions: make(chan posted, 64)}
	c.ctx, c.cancel = context.WithCancel(context.Background())
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

// stream is an open Snapshot stream.
type stream struct {
	*bufio.Reader
	io.Closer
	cancel context.CancelFunc // ends the request: a stream gone silent
	stale  time.Duration      // no line for this long: the stream is dead
}

// dialControl dials a control request's connection: to the address
// checked, then checked again to be the peer's (peer.HoldsListener), when
// the peer was checked; else to addr, after checking, where this machine
// can tell, that the process the peer claims still runs (peer.Alive).
func dialControl(ctx context.Context, d *net.Dialer, addr string) (net.Conn, error) {
	id, _ := ctx.Value(controlPeer{}).(peerID)
	if id.checked {
		addr = id.addr.String()
	} else if id.live { // a loopback peer whose pid ran as claimed: still?
		if alive, known := peer.Alive(id.proc); known && !alive {
			return nil, fmt.Errorf("%w: no token sent: %v is gone", ErrRefused, id.proc)
		}
	}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil || !id.checked {
		return conn, err
	}
	if err := peer.HoldsListener(id.proc, id.addr); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w: no token sent: %v", ErrRefused, err)
	}
	return conn, nil
}

// identify is the process the agent that answered info over a connection
// to raddr is: checked when this machine can tell (a loopback address, on
// Linux, the pid's listener), else as it says, with why not, and whether
// its pid runs with the start it says (live) or nothing can be told (blind).
func identify(info agent.Info, raddr net.Addr) (peerID, string) {
	says := peerID{proc: peer.Process{PID: info.PID, Start: info.StartTicks}, seen: true}
	tcp, ok := peer.Loopback(raddr)
	if !ok {
		says.blind = true
		return says, "the agent is not on a loopback address of this machine"
	}
	st, err := peer.StartTicks(info.PID)
	if errors.Is(err, errors.ErrUnsupported) {
		says.blind = true
		return says, err.Error()
	}
	if errors.Is(err, os.ErrNotExist) {
		return says, fmt.Sprintf("no pid %d runs on this machine", info.PID)
	}
	if err != nil {
		return says, fmt.Sprintf("pid %d: %v", info.PID, err)
	}
	if info.StartTicks != st {
		return says, fmt.Sprintf("pid %d started at another time than the agent says", info.PID)
	}
	says.live = true
	p := peer.Process{PID: info.PID, Start: st}
	if err := peer.HoldsListener(p, tcp); err != nil {
		return says, err.Error()
	}
	return peerID{proc: p, checked: true, live: true, addr: tcp, seen: true}, ""
}

// sameAs reports whether id, found after a reconnect, is shown to be the
// process was: the same pid and start claimed, that pid running with
// that start, and holding the listener if was was checked to. Where
// nothing can be checked (blind), only a claim unchanged with a token
// given (given) counts as the same.
func (id peerID) sameAs(was peerID, given bool) bool {
	switch {
	case id.proc != was.proc:
		return false
	case id.blind:
		return given && !was.checked
	}
	return id.live && (id.checked || !was.checked)
}

// tokenFor is the token to send to id (the one given, or its token
// file's) and, when there is none, why.
func (c *Client) tokenFor(info agent.Info, id peerID, why string, same bool) (string, string) {
	switch {
	case c.token0 != "" && same:
		return c.token0, ""
	case c.token0 != "":
		return "", "the --token given was for another process"
	case !info.Control:
		return "", ""
	case !id.checked:
		return "", fmt.Sprintf("not sure the agent at %s is pid %d (%s)", c.addr, info.PID, why)
	}
	tok, err := peer.ReadTokenOf(id.proc, filepath.Join(c.dir, agent.TokenFileName(id.proc.PID, id.proc.Start)))
	if err != nil {
		return "", fmt.Sprintf("no token file of pid %d to read (%v)", id.proc.PID, err)
	}
	return tok, ""
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

// changedNotice says that the agent at addr is not the process was, and
// what control is left.
func changedNotice(addr string, was, now peerID, token bool, why string) string {
	at := time.Now().Format("15:04:05")
	what := fmt.Sprintf("%s is another process since %s: pid %d (was pid %d)", addr, at, now.proc.PID, was.proc.PID)
	switch {
	case now.proc.PID == was.proc.PID && !now.live && !now.blind:
		what = fmt.Sprintf("%s is another process since %s: pid %d is gone", addr, at, was.proc.PID)
	case now.proc.PID == was.proc.PID && !now.checked:
		what = fmt.Sprintf("%s could not be checked to be pid %d since %s", addr, was.proc.PID, at)
	case now.proc.PID == was.proc.PID:
		what = fmt.Sprintf("%s is another process since %s: pid %d again, started anew", addr, at, now.proc.PID)
	}
	switch {
	case token:
		return what + "; its own token file read"
	case why == "":
		return what
	}
	return what + ": no token sent (" + why + ")"
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

// read decodes the stream into samples; when it breaks, it marks the
// client disconnected and reconnects every RetryEvery until Close.
func (c *Client) read(st stream, dec *session.Decoder) {
	defer c.wg.Done()
	defer close(c.samples)
	for {
		c.readAll(st, dec)
		if c.ctx.Err() != nil {
			return
		}
		c.mu.Lock()
		name := c.last.Scenario
		c.last = session.Snapshot{Run: session.Run{Scenario: name}, Link: session.Link{Remote: c.addr, Disconnected: time.Now(),
			PID: c.prog.pid, Since: c.prog.since, Earlier: c.earlier[:len(c.earlier):len(c.earlier)]}}
		gone := c.last
		c.mu.Unlock()
		c.push(gone)
		dec.Reset() // another process, or the same after a gap: history afresh
		for {
			select {
			case <-c.ctx.Done():
				return
			case <-time.After(RetryEvery):
			}
			var err error
			if st, err = c.connect(); err == nil {
				c.mu.Lock()
				c.fresh = true
				c.mu.Unlock()
				break
			}
			c.mu.Lock()
			c.last.Retry = err.Error()
			c.mu.Unlock()
		}
	}
}

// StaleAfter is how long a stream may go without a line before the
// client takes it for dead (a program stopped with SIGSTOP, or a host
// gone without closing the connection), at least 4 sample intervals,
// at most maxStale.
const StaleAfter = 3 * time.Second

// Bounds on what the peer sends, in time and size. The info (answer and
// body) must come within infoTimeout and maxInfo bytes; each stream line
// (its first byte and its newline) within the stream's stale time of the
// line before (of the stream's request for the first) and maxLine bytes;
// each control request's answer and body within controlTimeout, its body
// read to 1 KiB. Variables for tests only.
var (
	infoTimeout    = 5 * time.Second
	maxStale       = 30 * time.Second
	controlTimeout = 5 * time.Second
)

// maxInfo bounds the info's body.
const maxInfo = 64 << 10

// readAll reads st until it ends, fails or goes silent for st.stale, and
// closes it.
func (c *Client) readAll(st stream, dec *session.Decoder) {
	defer st.Close()
	defer st.cancel()
	lines := make(chan struct{}, 1)
	done := make(chan struct{})
	defer close(done)
	go func() { // the watchdog: a silent stream is cancelled
		t := time.NewTimer(st.stale)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-lines:
				t.Reset(st.stale)
			case <-t.C:
				st.cancel()
				return
			}
		}
	}()
	for c.readLine(st, dec) == nil {
		select {
		case lines <- struct{}{}:
		default:
		}
	}
}

// maxLine bounds one line of the stream.
const maxLine = 4 << 20

// readLine reads one sample from st into last and Samples.
func (c *Client) readLine(st stream, dec *session.Decoder) error {
	var line []byte
	for {
		part, more, err := st.ReadLine()
		if err != nil {
			return err
		}
		if line = append(line, part...); len(line) > maxLine {
			return fmt.Errorf("%w: a line over %d bytes", ErrNotAgent, maxLine)
		}
		if !more && len(bytes.TrimSpace(line)) > 0 {
			break
		}
		if !more {
			line = line[:0]
		}
	}
	s, err := dec.Snapshot(line)
	if err != nil {
		return fmt.Errorf("%w: a line that is not a sample", ErrNotAgent)
	}
	if s.Schema != session.SchemaVersion {
		return fmt.Errorf("%w: the stream is schema %d, this offtop %d", ErrSchema, s.Schema, session.SchemaVersion)
	}
	s.Remote = c.addr
	c.mu.Lock()
	c.identify(&s, time.Now())
	s.Notice = c.notice
	c.last = s
	c.mu.Unlock()
	c.push(s)
	return nil
}

// identify names the program s (a line read at now) comes from in its
// Link, and keeps apart the rows of the one before when the first line of
// a new stream is another's: a pid of its own, or a t_s below the last
// line's (an agent started anew, its rows with it; within a stream the
// agent's first line may be newer than the next). Callers hold mu.
func (c *Client) identify(s *session.Snapshot, now time.Time) {
	pid := c.info.PID
	fresh := c.fresh
	c.fresh = false
	if p := c.prog; p.seen && fresh && (pid != p.pid || s.Elapsed < p.elapsed) {
		rows := slices.Clone(p.sizes)
		for i := range rows {
			rows[i].Current = false // none is in force: the program is gone
		}
		c.earlier = append(c.earlier, session.EarlierProgram{PID: p.pid, Since: p.since, Until: p.until, Sizes: rows})
		c.prog = program{}
	}
	if !c.prog.seen {
		c.prog = program{seen: true, pid: pid, since: now.Add(-time.Duration(s.Elapsed))}
	}
	c.prog.elapsed, c.prog.until, c.prog.sizes = s.Elapsed, now, s.Sizes
	s.PID, s.Since = c.prog.pid, c.prog.since
	s.Earlier = c.earlier[:len(c.earlier):len(c.earlier)] // appended to, never changed
}

// push hands s to Samples, dropping the oldest when the reader is far
// behind (as the session does).
func (c *Client) push(s session.Snapshot) {
	select {
	case c.samples <- s:
	default:
		select {
		case <-c.samples:
		default:
		}
		c.samples <- s
	}
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

// Post queues a for the agent and returns at once; the channel gets nil
// when the agent applied it, or an error: ErrRefused (no control, no
// token, a wrong one), session.ErrAction (the agent could not apply it),
// or the agent unreachable.
func (c *Client) Post(a session.Action) <-chan error {
	res := make(chan error, 1)
	if !session.ProgramActions(a.Kind) {
		res <- fmt.Errorf("%w: %s is not available in an attached program", session.ErrAction, a.Kind)
		return res
	}
	select {
	case <-c.ctx.Done():
		res <- fmt.Errorf("%w: closed", session.ErrAction)
		return res
	default:
	}
	select {
	case c.actions <- posted{a, res}:
	default:
		res <- fmt.Errorf("%w: %w", session.ErrAction, session.ErrBusy)
	}
	return res
}

// control sends posted actions one at a time, in order.
func (c *Client) control() {
	defer c.wg.Done()
	for {
		select {
		case <-c.ctx.Done():
			for {
				select {
				case p := <-c.actions:
					p.res <- fmt.Errorf("%w: closed", session.ErrAction)
				default:
					return
				}
			}
		case p := <-c.actions:
			p.res <- c.send(p.a)
		}
	}
}

// CheckControl asks the agent whether this client may send actions: nil,
// or an error wrapping ErrRefused naming why not.
func (c *Client) CheckControl() error { return c.request(http.MethodGet, "control", nil) }

func (c *Client) send(a session.Action) error {
	body, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return c.request(http.MethodPost, "action", body)
}

// request sends one control request with the token and maps the answer.
func (c *Client) request(method, path string, body []byte) error {
	c.mu.Lock()
	tok, id, noTok := c.token, c.peer, c.why
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithValue(c.ctx, controlPeer{}, id), controlTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.ctl.Do(req)
	if err != nil {
		switch {
		case errors.Is(err, ErrRefused):
			return err
		case errors.Is(err, context.DeadlineExceeded) && c.ctx.Err() == nil: // sent, perhaps: a stopped process reads it later
			return fmt.Errorf("%w: %s: no answer within %v; the agent may still apply it", ErrUnreachable, c.base.Host, controlTimeout)
		}
		return c.unreachable(err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	why := session.Clean(strings.TrimSpace(string(msg)))
	switch resp.StatusCode {
	case http.StatusOK, http.StatusNoContent:
		return nil
	case http.StatusUnauthorized:
		if tok == "" && noTok != "" {
			return fmt.Errorf("%w: no token: %s; give --token", ErrRefused, noTok)
		}
		if tok == "" {
			return fmt.Errorf("%w: no token; give --token", ErrRefused)
		}
		return fmt.Errorf("%w: wrong token", ErrRefused)
	case http.StatusForbidden:
		return fmt.Errorf("%w: %s", ErrRefused, strings.TrimPrefix(why, "offtop agent: "))
	case http.StatusUnprocessableEntity: // the agent's session.ErrAction, said once
		return fmt.Errorf("%w: %s", session.ErrAction, strings.TrimPrefix(why, session.ErrAction.Error()+": "))
	}
	return fmt.Errorf("%w: the agent answered %s: %s", ErrRefused, session.Clean(resp.Status), why)
}

// Close stops reading and reconnecting, and closes Samples. Safe twice.
func (c *Client) Close() {
	c.once.Do(func() {
		c.cancel()
		c.wg.Wait()
	})
}

var _ session.Source = (*Client)(nil)
