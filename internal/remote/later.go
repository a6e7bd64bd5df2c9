package remote

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/offtop/offtop/internal/session"
)

// Later is a Source for an agent that was unreachable when first dialled
// (a fleet's member that is down at start): until a dial succeeds its
// Snapshot is the Disconnected one, naming the address and why. Each retry, retry after the last one ended, is Dial with all its
// checks, then the caller's check (the fleet's control check); once both
// pass it reads that Client. Only ErrUnreachable is retried: an address
// that answers as something else, or fails the check otherwise, is
// refused for good, its Notice says so and Samples closes. Make it with
// DialLater.
type Later struct {
	addr    string
	o       Options
	check   func(*Client) error
	samples chan session.Snapshot
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}

	mu    sync.Mutex // guards the fields below
	cl    *Client    // nil until a Dial succeeds
	since time.Time  // the first failed Dial
	why   string     // the last dial's error
	again bool       // the last failure is one to dial again for
}

// DialLater is Later for addr, first found unreachable with err at since;
// it dials again retry (> 0) after each failure until one succeeds or
// Close. check, when not nil, runs on each Client dialled before it is
// read; an error from it fails that dial.
func DialLater(addr string, o Options, check func(*Client) error, err error, since time.Time, retry time.Duration) *Later {
	ctx, cancel := context.WithCancel(context.Background())
	l := &Later{addr: addr, o: o, check: check, samples: make(chan session.Snapshot, 1024), ctx: ctx, cancel: cancel,
		done: make(chan struct{}), since: since}
	l.fail(err)
	go l.run(retry)
	return l
}

// fail files err as why the agent is not read.
func (l *Later) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.again, l.why = errors.Is(err, ErrUnreachable), err.Error()
}

func (l *Later) run(retry time.Duration) {
	defer close(l.done)
	defer close(l.samples)
	l.mu.Lock()
	again := l.again
	l.mu.Unlock()
	if !again {
		return // refused for good at the first dial
	}
	t := time.NewTimer(retry)
	defer t.Stop()
	var cl *Client
	for cl == nil {
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		c, err := DialContext(l.ctx, l.addr, l.o)
		if err == nil && l.check != nil {
			if err = l.check(c); err != nil {
				c.Close()
			}
		}
		if err != nil {
			if l.ctx.Err() != nil {
				return // Close during the dial
			}
			l.fail(err)
			session.PushNewest(l.samples, l.Snapshot())
			l.mu.Lock()
			again := l.again
			l.mu.Unlock()
			if !again {
				return // refused for good: the Notice stays, Samples closes
			}
			t.Reset(retry)
			continue
		}
		cl = c
	}
	l.mu.Lock()
	if l.ctx.Err() != nil { // Close came during the Dial
		l.mu.Unlock()
		cl.Close()
		return
	}
	l.cl = cl
	l.mu.Unlock()
	for s := range cl.Samples() {
		session.PushNewest(l.samples, s)
	}
}

// Samples is the Client's samples once one is read; before, a
// Disconnected Snapshot after each failed retry. It closes at Close, or
// after a refusal for good.
func (l *Later) Samples() <-chan session.Snapshot { return l.samples }

// Snapshot is the Client's newest once one is read; before, the
// Disconnected Snapshot: Remote the address, Disconnected the first
// failed Dial, Retry the last dial's error, and Notice, once refused for
// good, that it is not dialled again.
func (l *Later) Snapshot() session.Snapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cl != nil {
		return l.cl.Snapshot()
	}
	var s session.Snapshot
	s.Remote, s.Disconnected, s.Retry = l.addr, l.since, l.why
	if !l.again {
		s.Notice = fmt.Sprintf("%s: %s; not dialled again", l.addr, l.why)
	}
	return s
}

// Post is the Client's once one is read; before, ErrUnreachable.
func (l *Later) Post(a session.Action) <-chan error {
	l.mu.Lock()
	cl := l.cl
	l.mu.Unlock()
	if cl != nil {
		return cl.Post(a)
	}
	res := make(chan error, 1)
	res <- fmt.Errorf("%w: %s: not read yet", ErrUnreachable, l.addr)
	return res
}

// Close stops dialling, closes the Client if one is read, and closes
// Samples. Safe twice.
func (l *Later) Close() {
	l.cancel()
	l.mu.Lock()
	cl := l.cl
	l.mu.Unlock()
	if cl != nil {
		cl.Close() // ends run's reading
	}
	<-l.done
}

var _ session.Source = (*Later)(nil)
