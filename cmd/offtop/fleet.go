package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/offtop/offtop/internal/cliflag"
	"github.com/offtop/offtop/internal/fleet"
	"github.com/offtop/offtop/internal/jobctl"
	"github.com/offtop/offtop/internal/peer"
	"github.com/offtop/offtop/internal/remote"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/ui"
)

// fleetOptions are what `offtop attach ADDR ADDR...` (or --from) adds:
// the addresses, the sort key, and the fleet once dialled.
type fleetOptions struct {
	from, sortBy *string
	list         []string // every ADDR, in the order given
	sort         fleet.SortKey
	fleet        *fleet.Fleet // dialled by runFleet
}

// maxFleet bounds the processes of one fleet.
const maxFleet = 256

// Bounds on a --from file: its size, one line's (its newline counted),
// and how long a pipe may take to its end.
const (
	maxFromBytes = 1 << 20
	maxFromLine  = 64 << 10
	fromTimeout  = 5 * time.Second
)

// fleetFlags defines the fleet's flags into fs.
func fleetFlags(fs *cliflag.Set) *fleetOptions {
	return &fleetOptions{
		from:   fs.String("from", "", "`FILE` addresses to attach to, one a line (# starts a comment), after the ADDRs given"),
		sortBy: fs.String("sort", "given", "`KEY` a fleet's order: given, name, addr, p99, queue, tasks, cpu, rss (the s key steps through them)"),
	}
}

// addrs is first and rest (the ADDRs of the command line), then those of
// --from, in order.
func (fo *fleetOptions) addrs(first string, rest []string) ([]string, error) {
	var out []string
	if first != "" {
		out = append(out, first)
	}
	out = append(out, rest...)
	if *fo.from == "" {
		return out, nil
	}
	// Non-blocking, so a FIFO with no writer neither hangs the open nor,
	// with a writer that never writes, the read past fromTimeout.
	f, err := os.OpenFile(*fo.from, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, usagef("attach: --from: %v", err)
	}
	defer f.Close()
	_ = f.SetReadDeadline(time.Now().Add(fromTimeout)) // a regular file has none: it does not wait
	sc := bufio.NewScanner(io.LimitReader(f, maxFromBytes+1))
	sc.Buffer(nil, maxFromLine)
	read := 0
	n := 1
	for ; sc.Scan(); n++ {
		if read += len(sc.Bytes()) + 1; read > maxFromBytes {
			return nil, usagef("attach: --from: %s is over %d MiB", *fo.from, maxFromBytes>>20)
		}
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.ContainsAny(line, " \t"):
			return nil, usagef("attach: --from: %s line %d: one address a line: %s", *fo.from, n, quote(line))
		default:
			out = append(out, line)
		}
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return nil, usagef("attach: --from: %s line %d is over %d KiB", *fo.from, n, maxFromLine>>10)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, usagef("attach: --from: %s: no end within %v (a pipe nobody closes?)", *fo.from, fromTimeout)
	case err != nil:
		return nil, usagef("attach: --from: %s: %v", *fo.from, err)
	}
	if len(out) == 0 {
		return nil, usagef("attach: --from: %s has no address", *fo.from)
	}
	return out, nil
}

// check takes addrs for a fleet, refusing what it cannot do: --load
// (a load drives one program), an address twice, too many, and, with
// --headless, a --keys script that sends an action (no process is
// selected there).
func (fo *fleetOptions) check(addrs []string, o options, seen map[string]bool) error {
	k, err := fleet.ParseSortKey(*fo.sortBy)
	switch {
	case err != nil:
		return usagef("attach: --sort: %v", err)
	case seen["load"]:
		return usagef("attach: --load drives one program: give one ADDR with it (%d given)", len(addrs))
	case seen["route"]:
		return usagef("attach: --route features one program's route: give one ADDR with it (%d given)", len(addrs))
	case len(addrs) > maxFleet:
		return usagef("attach: %d addresses, at most %d", len(addrs), maxFleet)
	case o.headless && scriptControls(o.keys):
		return usagef("attach: --keys: an action with --headless and more than one ADDR: no process is selected there")
	case seen["token"]:
		return usagef("attach: --token is one process's token (each agent makes its own): give it with one ADDR; a fleet reads each process's token file")
	}
	at := map[string]int{}
	for i, a := range addrs {
		k := agentKey(a)
		if j, ok := at[k]; ok {
			if addrs[j] == a {
				return usagef("attach: %s given twice (ADDR %d and %d)", quote(a), j+1, i+1)
			}
			return usagef("attach: %s and %s are one agent (ADDR %d and %d)", quote(addrs[j]), quote(a), j+1, i+1)
		}
		at[k] = i
	}
	fo.list, fo.sort = addrs, k
	return nil
}

// agentKey is the agent addr names, the same for every way of writing
// it: scheme, host in lower case, port as a number (80 or 443 when a URL
// leaves it out), the agent's path. addr is one BaseURL takes.
func agentKey(addr string) string {
	u, err := remote.BaseURL(addr)
	if err != nil {
		return addr
	}
	port := u.Port()
	if n, err := strconv.Atoi(port); err == nil {
		port = strconv.Itoa(n)
	} else if u.Scheme == "https" {
		port = "443"
	} else {
		port = "80"
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port) + u.EscapedPath()
}

// oneAgentTwice refuses two addresses whose agents are one process (the
// same pid and start): names agentKey cannot tell apart ("localhost" and
// "127.0.0.1", an IPv4-mapped IPv6 address), whose rows would be one
// program's twice and whose keys would reach it twice. clients are
// addrs' (nil: not read).
func oneAgentTwice(addrs []string, clients []*remote.Client) error {
	at := map[peer.Process]int{}
	for i, c := range clients {
		if c == nil {
			continue
		}
		p := c.Process()
		if j, ok := at[p]; ok {
			return usagef("attach: %s and %s are one agent, %v's (ADDR %d and %d)", quote(addrs[j]), quote(addrs[i]), p, j+1, i+1)
		}
		at[p] = i
	}
	return nil
}

// fleetRedial is how often a fleet dials a member that was down at start:
// as often as a Client reconnects.
const fleetRedial = remote.RetryEvery

// fleetGrace is how long the fleet's start waits for the other members
// once one is read: a member that accepts and does not answer would hold
// the first screen for its whole dial timeout (5 s).
const fleetGrace = time.Second

// dialFleet dials every addr at once (and checks control when control is
// set), and returns each one's Client or error, in addrs' order. Once one
// is read it waits at most grace for the others: a member still dialling
// then is cancelled, its error ErrUnreachable ("no answer within grace"),
// so the caller dials it again later; a Client its dial still returns is
// closed.
func dialFleet(addrs []string, o remote.Options, control bool, grace time.Duration) ([]*remote.Client, []error) {
	type dialed struct {
		i   int
		c   *remote.Client
		err error
	}
	clients, errs := make([]*remote.Client, len(addrs)), make([]error, len(addrs))
	cancels := make([]context.CancelFunc, len(addrs))
	res := make(chan dialed, len(addrs))
	for i, a := range addrs {
		ctx, cancel := context.WithCancel(context.Background())
		cancels[i] = cancel
		go func() {
			c, err := remote.DialContext(ctx, a, o)
			if err == nil && control {
				err = c.CheckControl()
			}
			res <- dialed{i, c, err}
		}()
	}
	var after <-chan time.Time // grace from the first member read
	for n := range len(addrs) {
		select {
		case d := <-res:
			clients[d.i], errs[d.i] = d.c, d.err
			if d.err == nil && after == nil {
				after = time.After(grace)
			}
		case <-after:
			for i := range addrs {
				if clients[i] == nil && errs[i] == nil { // still dialling
					cancels[i]()
					errs[i] = fmt.Errorf("%w: %s: no answer within %v of the first member read", remote.ErrUnreachable, addrs[i], grace)
				}
			}
			go func() { // the cancelled dials' ends
				for range len(addrs) - n {
					if d := <-res; d.c != nil {
						d.c.Close()
					}
				}
			}()
			return clients, errs
		}
	}
	return clients, errs
}

// runFleet is `offtop attach` with more than one ADDR: every agent dialled
// at once (dialFleet), then the fleet screen or --headless. A member unreachable at
// start is shown down and dialled again while another is read; one that
// answers but cannot be read (not an agent, refused), or none read, is
// one line naming the first that refuses and its cause, exit 2.
func runFleet(o options, token string, stdout, stderr io.Writer, cr *crasher) int {
	fo := o.attach.fleet
	clients, errs := dialFleet(fo.list, remote.Options{Token: token}, scriptControls(o.keys), fleetGrace)
	members := make([]session.Source, len(clients))
	for i, c := range clients {
		if c != nil {
			members[i] = c
		}
	}
	closeAll := func() {
		for _, m := range members {
			if m != nil {
				m.Close()
			}
		}
	}
	// Members down at start are dialled again (remote.Later) when at least
	// one is read. A refusal (not an agent, refused, or unreachable only
	// for control), or none read, is one line: the first refusal's, else
	// the first member's down.
	refuses := func(i int) bool {
		return errs[i] != nil && (!errors.Is(errs[i], remote.ErrUnreachable) || clients[i] != nil)
	}
	read, first := 0, -1
	for i, e := range errs {
		switch {
		case e == nil:
			read++
		case refuses(i) && (first < 0 || !refuses(first)), first < 0:
			first = i
		}
	}
	if first >= 0 && (read == 0 || refuses(first)) {
		closeAll()
		return exitCode(usagef("attach: %s: %v", fo.list[first], errs[first]), stderr)
	}
	if err := oneAgentTwice(fo.list, clients); err != nil {
		closeAll()
		return exitCode(err, stderr)
	}
	if !o.headless && !jobctl.IsTerminal(stdout) {
		closeAll()
		fmt.Fprintln(stderr, "offtop: stdout is not a terminal; use --headless for JSON Lines")
		return exitUsage
	}
	var check func(*remote.Client) error // the check each member at start had
	if scriptControls(o.keys) {
		check = (*remote.Client).CheckControl
	}
	now := time.Now()
	for i, e := range errs {
		if e != nil { // its row says so (headless: the run's disconnected notes)
			members[i] = remote.DialLater(fo.list[i], remote.Options{Token: token}, check, e, now, fleetRedial)
		}
	}
	fo.fleet = fleet.New(fo.list, members)
	o.session.Scenario = fmt.Sprintf("a fleet of %d", len(fo.list))
	o.noSummary = true // the summary is of one process; each one's rows are in its lines
	return runFront(o, stdout, stderr, cr)
}

// fleetSource is a fleet as the runner's Source: the samples of every
// process, and Close. It takes no action (each goes to one process,
// from the fleet screen).
type fleetSource struct{ *fleet.Fleet }

func (s fleetSource) Snapshot() session.Snapshot {
	return session.Snapshot{Run: session.Run{Scenario: fmt.Sprintf("a fleet of %d", s.Len())}}
}

func (fleetSource) Post(a session.Action) <-chan error {
	res := make(chan error, 1)
	res <- fmt.Errorf("%w: %s: no process selected", session.ErrAction, a.Kind)
	return res
}

// fleetModel is the fleet screen of fo.
func fleetModel(fo *fleetOptions) ui.FleetModel { return ui.NewFleet(fo.fleet, fo.sort) }
