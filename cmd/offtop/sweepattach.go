package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/offtop/offtop/internal/cliflag"
	"github.com/offtop/offtop/internal/decimal"
	"github.com/offtop/offtop/internal/load"
	"github.com/offtop/offtop/internal/peer"
	"github.com/offtop/offtop/internal/remote"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sweep"
)

// sweepAttach is `offtop sweep --attach`'s settings, and --load's value
// (the flag.Value), which is load steps without --attach and a SPEC with.
type sweepAttach struct {
	addr, route, token string

	steps  *int // --load as steps (sweep.Config.Load)
	raw    string
	intErr error // --load not a whole number (fine for a SPEC)
	spec   load.Spec

	// Set by open: the agent's client, the load, the sweep's program.
	client *remote.Client
	load   *load.Load
	att    *sweep.Attached
}

// Set is --load's: steps when s is a whole number; the SPEC is read by
// check, once --attach is known.
func (a *sweepAttach) Set(s string) error {
	a.raw = s
	n, err := decimal.Int(s)
	a.intErr = err
	if err == nil {
		*a.steps = n
	}
	return nil
}

// Get is the steps (flag.Getter: an int flag's messages).
func (a *sweepAttach) Get() any {
	if a == nil || a.steps == nil {
		return 0
	}
	return *a.steps
}

func (a *sweepAttach) String() string {
	if a == nil || a.steps == nil {
		return "0"
	}
	return a.raw
}

// attachRefused are the sweep's flags that do not apply to an attached
// program: its own load and scenario settings.
var attachRefused = []string{"scenario", "scale", "loops", "per-task", "priority", "hdr-log",
	"split", "jobs", "payload", "listen"}

// check reads --load by --attach, and checks the --attach settings.
func (a *sweepAttach) check(fs *cliflag.Set, seen map[string]bool) error {
	if a.addr == "" {
		for _, f := range []string{"route", "token"} {
			if seen[f] {
				return fmt.Errorf("--%s: only with --attach ADDR", f)
			}
		}
		if seen["load"] && a.intErr != nil && strings.HasPrefix(a.raw, "/") {
			return fmt.Errorf("--load: %s is a SPEC, an HTTP load, which needs --attach ADDR (without it --load is load steps, a whole number)", quote(a.raw))
		}
		if seen["load"] && a.intErr != nil {
			return fs.Error(fmt.Errorf("invalid value %q for flag -load: %w", a.raw, a.intErr))
		}
		return nil
	}
	for _, f := range attachRefused {
		if seen[f] {
			return fmt.Errorf("--%s: not with --attach (the program runs its own work; --load SPEC is the load)", f)
		}
	}
	if _, err := remote.BaseURL(a.addr); err != nil {
		return fmt.Errorf("--attach: %v: %s", err, quote(a.addr))
	}
	if !seen["load"] {
		return errors.New("--attach: needs --load SPEC, the load each size is held under (e.g. --load /ping=20/s,/fib?n=25=20/s)")
	}
	spec, err := load.Parse(a.raw)
	if err != nil {
		return fmt.Errorf("--load: %v", err)
	}
	a.spec = spec
	if seen["token"] && a.token == "" {
		return errors.New("--token: empty (leave it out to read the agent's token file)")
	}
	if seen["token"] && !peer.ValidToken([]byte(a.token)) {
		return errors.New("--token: " + tokenRule)
	}
	if a.route == "" {
		a.route = spec[0].Path
	} else if !slices.ContainsFunc(spec, func(t load.Target) bool { return t.Path == a.route }) {
		return fmt.Errorf("--route: %s is not a target of --load (%s)", quote(a.route), spec)
	}
	return nil
}

// open dials the agent, checks control and the load's targets, starts the
// load and sets c.Attach; stop ends the load and the client. Errors are
// one line each, a usage error (exit 2).
func (a *sweepAttach) open(c *sweep.Config) (stop func(), err error) {
	cl, err := remote.Dial(a.addr, remote.Options{Token: a.token})
	if err != nil {
		return nil, fmt.Errorf("--attach: %v", err)
	}
	fail := func(err error) (func(), error) { cl.Close(); return nil, err }
	if err := cl.CheckControl(); err != nil {
		return fail(fmt.Errorf("--attach: %v (the sweep resizes the pool)", err))
	}
	if snap := cl.Snapshot(); !snap.Disconnected.IsZero() {
		return fail(fmt.Errorf("--attach: %w", sweep.ErrGone))
	}
	u, _ := remote.BaseURL(a.addr)
	base := u.Scheme + "://" + u.Host
	if err := load.Check(base, a.spec); err != nil {
		return fail(fmt.Errorf("--load: %v", err))
	}
	window := time.Duration(cl.Snapshot().Window)
	if window <= 0 {
		window = session.DefaultWindow
	}
	l, err := load.Start(load.Options{Base: base, Spec: a.spec, Window: window})
	if err != nil {
		return fail(fmt.Errorf("--load: %v", err))
	}
	a.client, a.load = cl, l
	a.att = &sweep.Attached{Addr: a.addr, Src: cl, Load: l, Target: a.route}
	c.Attach = a.att
	return func() { l.Stop(); cl.Close() }, nil
}

// restoreAtOnce bounds restoreNow's wait: a local agent answers in about
// a millisecond, and a second signal means now.
const restoreAtOnce = 250 * time.Millisecond

// restoreNow sets the program's pool back to its size before the sweep
// (a second signal, exiting at once), waiting at most restoreAtOnce,
// saying on stderr when it cannot.
func (a *sweepAttach) restoreNow(stderr io.Writer) {
	if a == nil || a.att == nil {
		return
	}
	if err := a.att.RestoreNow(restoreAtOnce); err != nil {
		fmt.Fprintf(stderr, "offtop sweep: the pool of %s NOT set back: %v\n", a.addr, err)
	}
}
