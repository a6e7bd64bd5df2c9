package remote

import (
	"bytes"
	"fmt"
	"slices"
	"time"

	"github.com/offtop/offtop/internal/session"
)

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
func (c *Client) push(s session.Snapshot) { session.PushNewest(c.samples, s) }
