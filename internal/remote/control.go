package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/offtop/offtop/internal/peer"
	"github.com/offtop/offtop/internal/session"
)

// controlPeer carries, in a control request's context, the peer its
// token is for: dialControl dials that address only and checks it.
type controlPeer struct{}

type posted struct {
	a   session.Action
	res chan error
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

// Post queues a for the agent and returns at once; the channel gets nil
// when the agent applied it, or an error: ErrRefused (no control, no
// token, a wrong one), session.ErrAction (the agent could not apply it;
// closed: Close ran first or meanwhile), or the agent unreachable. It
// always gets one answer.
func (c *Client) Post(a session.Action) <-chan error {
	res := make(chan error, 1)
	if !session.ProgramActions(a.Kind) {
		res <- fmt.Errorf("%w: %s is not available in an attached program", session.ErrAction, a.Kind)
		return res
	}
	c.postMu.Lock()
	defer c.postMu.Unlock()
	if c.shut || c.ctx.Err() != nil {
		res <- fmt.Errorf("%w: closed", session.ErrAction)
		return res
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
			c.postMu.Lock()
			c.shut = true // no Post queues after this: the drain below answers all
			c.postMu.Unlock()
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
