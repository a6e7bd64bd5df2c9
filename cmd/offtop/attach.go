package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/offtop/offtop/internal/cliflag"
	"github.com/offtop/offtop/internal/fleet"
	"github.com/offtop/offtop/internal/jobctl"
	"github.com/offtop/offtop/internal/load"
	"github.com/offtop/offtop/internal/peer"
	"github.com/offtop/offtop/internal/remote"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/ui"
)

// attachOptions are what `offtop attach` adds to options: the agent's
// client, dialled before the front end starts.
type attachOptions struct {
	addr   string
	client *remote.Client
	spec   load.Spec      // --load; nil without
	route  string         // --route; "" without
	source session.Source // client with the load's figures and the route, when either is set
	fleet  *fleetOptions  // more than one ADDR (fleet.go); nil for one
}

// attachUsage is offtop attach --help, generated from its flags.
var attachUsage = func() string {
	fs, _, _, _, _, _ := attachFlags(new(options))
	return "usage: offtop attach ADDR [flags]   the dashboard of a Go program running offtop's agent\n" +
		"       offtop attach ADDR ADDR... | --from FILE [flags]   a fleet: one row per process\n" +
		"  ADDR                host:port (e.g. 127.0.0.1:7070) or URL (http://host:port/debug/offtop/)\n" +
		"flags:\n" + fs.Usage("token", "headless", "keys", "duration", "interval", "no-summary", "load", "route", "from", "sort") + "\n" +
		attachKeysUsage + "\n" + keysLanguage + "\n" +
		"When the program goes away the dashboard says \"disconnected\" and attach\n" +
		"reconnects every " + remote.RetryEvery.String() + "; --headless writes no line meanwhile and says so on\nstderr."
}()

// attachKeysUsage is attach --help's list of the keys.
const attachKeysUsage = "keys: + - up down 0-9 (pool size) a (auto: try sizes, pick one) g G = (GOMAXPROCS) r (reset) d e (next route) ? q ctrl+c\n" +
	"a fleet: up down (select) enter (open its dashboard) esc (back) s (sort); + - 0-9 a g G = r to the selected process"

// attachFlags defines attach's flags into o: the values of --token,
// --keys, --load and --route, and the fleet's flags.
func attachFlags(o *options) (fs *cliflag.Set, token, keys, loadSpec, route *string, fo *fleetOptions) {
	fs = cliflag.New("offtop attach")
	token = fs.String("token", "", "`T` the agent's control token, with one ADDR (default: the agent's token file on this machine, read only when the agent is checked to be that process)")
	keys = new(string)
	frontFlags(fs, o, keys, "`D` redraw period, RANGE (the agent samples at its own)")
	loadSpec = fs.String("load", "", loadUsage)
	route = fs.String("route", "", "`ROUTE` the route the headline and sizes tried feature: a route as the program's mux names it (/ping, GET /items/{id}) or a --load target's path (default: --load's first target, else the busiest route when first seen; the e key cycles)")
	fo = fleetFlags(fs)
	return fs, token, keys, loadSpec, route, fo
}

// tokenRule says what a --token may be: what an agent's token file may
// hold (peer.ValidToken).
var tokenRule = fmt.Sprintf("not a token: at most %d bytes of letters, digits and -._~+/=", peer.MaxTokenBytes)

const attachShortUsage = "usage: offtop attach ADDR [--token T] [--headless] [--keys SCRIPT] [--duration D]  (offtop attach --help)"

// parseAttach reads `offtop attach` arguments; ADDR may come before or
// after the flags.
func parseAttach(args []string) (options, string, error) {
	var o options
	fs, token, keys, loadSpec, route, fo := attachFlags(&o)
	// Flags and ADDRs in any order: parse up to a word, take it, go on.
	var addr string
	var rest []string // the ADDRs after the first
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return o, "", flag.ErrHelp
			}
			return o, "", usagef("attach: %s", fs.Error(err))
		}
		if fs.NArg() == 0 {
			break
		}
		if addr == "" {
			addr = fs.Arg(0)
		} else {
			rest = append(rest, fs.Arg(0))
		}
		args = fs.Args()[1:]
	}
	addrs, err := fo.addrs(addr, rest)
	switch {
	case err != nil:
		return o, "", err
	case len(addrs) == 0:
		return o, "", usagef("attach: no ADDR (host:port of the program's agent)")
	}
	addr = addrs[0]
	if err := fs.Check(); err != nil {
		return o, "", usagef("attach: %v", err)
	}
	for _, a := range addrs {
		if _, err := remote.BaseURL(a); err != nil {
			return o, "", usagef("attach: %v: %s", err, quote(a))
		}
	}
	seen := fs.Seen()
	if seen["token"] && *token == "" {
		return o, "", usagef("attach: --token: empty (leave it out to read the agent's token file)")
	}
	if seen["token"] && !peer.ValidToken([]byte(*token)) {
		return o, "", usagef("attach: --token: %s", tokenRule)
	}
	if _, err := fleet.ParseSortKey(*fo.sortBy); err != nil {
		return o, "", usagef("attach: --sort: %v", err)
	}
	steps, err := keySteps(*keys, seen)
	if err != nil {
		return o, "", usagef("attach: %v", err)
	}
	for i, s := range steps {
		if !ui.AttachedKey(s.Key) {
			return o, "", usagef("attach: --keys: %s is not available attached (it drives offtop's own scenarios; attached: %s): step %d %s",
				s.Key, strings.Join(ui.AttachedKeys(), " "), i+1, quote(formatKeys(steps[i:i+1])))
		}
	}
	o.keys = steps
	spec, err := parseLoad("attach", *loadSpec, seen["load"])
	if err != nil {
		return o, "", err
	}
	if seen["route"] && strings.TrimSpace(*route) == "" {
		return o, "", usagef("attach: --route: empty (leave it out for --load's first target, or the busiest route)")
	}
	o.attach = &attachOptions{addr: addr, spec: spec, route: *route}
	if len(addrs) > 1 {
		if err := fo.check(addrs, o, seen); err != nil {
			return o, "", err
		}
		o.attach.fleet = fo
	}
	return o, *token, nil
}

// runAttach is `offtop attach`: the dashboard or --headless against the
// agent at ADDR. An agent that cannot be read, or that refuses the
// control a --keys script needs, is one line naming the cause and exit 2.
func runAttach(args []string, stdout, stderr io.Writer, cr *crasher) int {
	o, token, err := parseAttach(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return printed(fmt.Fprintln(stdout, attachUsage))(stderr)
	case err != nil:
		fmt.Fprintf(stderr, "offtop: %v\n%s\n", err, attachShortUsage)
		return exitUsage
	}
	if o.attach.fleet != nil {
		return runFleet(o, token, stdout, stderr, cr)
	}
	// The address and the flags first, the terminal last: an attach that
	// could not run anyway says why, not only that stdout is no terminal.
	c, err := remote.Dial(o.attach.addr, remote.Options{Token: token})
	if err != nil {
		return exitCode(usagef("attach: %v", err), stderr)
	}
	o.attach.client = c
	if scriptControls(o.keys) {
		if err := c.CheckControl(); err != nil {
			c.Close()
			return exitCode(usagef("attach: --keys: %v", err), stderr)
		}
	}
	if o.attach.spec != nil || o.attach.route != "" {
		if o.attach.source, err = startLoad("attach", o.attach.addr, o.attach.spec, o.attach.route, c); err != nil {
			c.Close()
			return exitCode(err, stderr)
		}
	}
	if !o.headless && !jobctl.IsTerminal(stdout) {
		if o.attach.source != nil {
			o.attach.source.Close()
		}
		c.Close()
		fmt.Fprintln(stderr, "offtop: stdout is not a terminal; use --headless for JSON Lines")
		return exitUsage
	}
	o.session.Scenario = c.Snapshot().Scenario
	return runFront(o, stdout, stderr, cr)
}

// scriptControls reports whether a --keys script sends an action (a key
// that is more than q, ? or d).
func scriptControls(steps []step) bool {
	for _, s := range steps {
		if _, _, ok := ui.ActionFor(s.Key); ok {
			return true
		}
	}
	return false
}
