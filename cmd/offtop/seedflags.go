package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/offtop/offtop/internal/cliflag"
	"github.com/offtop/offtop/internal/decimal"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
)

// seedFlags defines on fs into c the flags of the seeds' experiments
// and returns their check: one usage error naming the flag, or nil. With
// loops nil (offtop sweep, which takes --loops as a list and --per-task
// as "compare both") it leaves out --loops, --per-task and --no-load.
func seedFlags(fs *cliflag.Set, c *session.Config, loops *int) func(seen map[string]bool) error {
	if loops != nil {
		fs.Var(decimal.Var(loops, 1), "loops", fmt.Sprintf("`N` server: Loops 1..%d, connections spread round-robin, as Node's cluster (l and L change it live)", scenarios.MaxLoops))
		fs.Range("loops", fmt.Sprintf("1..%d", scenarios.MaxLoops))
		fs.BoolVar(&c.PerTask, "per-task", false, "a goroutine per task, no queue and no bound, instead of the pool (u toggles it)")
		fs.BoolVar(&c.NoLoad, "no-load", false, "start with the scenario's own clients off (space resumes), to drive offtop's server with autocannon, oha, hey or wrk")
	}
	fs.StringVar(&c.Scenarios.CountSplit, "split", scenarios.SplitQueue, "`NAME` count: one of "+strings.Join(scenarios.CountSplits, ", ")+", seed 000's splits (p cycles them)")
	fs.Var(decimal.Var(&c.Scenarios.CountJobs, 0), "jobs", "`N` count: jobs per batch 1..256, submitted at once (default: 16)")
	fs.Range("jobs", "1..256")
	fs.StringVar(&c.Scenarios.BreakevenPayload, "payload", scenarios.PayloadBytes, "`KIND` breakeven: bytes or objects, 1M {id, sku, price} serialised with encoding/gob (o switches)")
	fs.StringVar(&c.Scenarios.Listen, "listen", "", "`ADDR` server, io: listen on ADDR (default: 127.0.0.1:0; a missing host is 127.0.0.1); loopback only, unless")
	allowRemote := fs.Bool("allow-remote", false, "lets --listen take an address other machines reach")
	return func(seen map[string]bool) error {
		sc := &c.Scenarios
		if loops != nil {
			if *loops < 1 || *loops > scenarios.MaxLoops {
				return usagef("--loops: out of range 1..%d: %d", scenarios.MaxLoops, *loops)
			}
			sc.ServerLoops = *loops
		}
		if _, err := scenarios.ParseSplit(sc.CountSplit); err != nil || (seen["split"] && sc.CountSplit == "") {
			return usagef("--split: not one of %s: %s", strings.Join(scenarios.CountSplits, ", "), quote(sc.CountSplit))
		}
		if seen["jobs"] && (sc.CountJobs < 1 || sc.CountJobs > 256) {
			return usagef("--jobs: out of range 1..256: %d", sc.CountJobs)
		}
		if _, err := scenarios.ParsePayload(sc.BreakevenPayload); err != nil || (seen["payload"] && sc.BreakevenPayload == "") {
			return usagef("--payload: not bytes or objects: %s", quote(sc.BreakevenPayload))
		}
		if seen["listen"] {
			addr, err := listenAddr(sc.Listen, *allowRemote)
			if err != nil {
				return usagef("--listen: %v: %s", err, quote(sc.Listen))
			}
			sc.Listen = addr
		}
		return nil
	}
}

// listenAddr checks a --listen value, HOST:PORT with PORT 0..65535, and
// gives a missing host as 127.0.0.1. HOST must be loopback (an IP, or a
// name whose every address is) unless remote; and the address must be
// one this machine can listen on now: it is tried (and closed) here, so a
// port in use, an address not on this machine or a host not found is one
// line at the start, reason first, not the scenario's failure to start.
func listenAddr(s string, remote bool) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", errString("not HOST:PORT like 127.0.0.1:17080")
	}
	if p, err := decimal.Int(port); err != nil || p < 0 || p > 65535 {
		return "", errString("port not a number 0..65535")
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !remote {
		ips, err := net.LookupIP(host)
		if err != nil || len(ips) == 0 {
			return "", errString("host not found")
		}
		for _, ip := range ips {
			if !ip.IsLoopback() {
				return "", errString("not a loopback address (--allow-remote to listen where other machines reach)")
			}
		}
	}
	addr := net.JoinHostPort(host, port)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		var dns *net.DNSError
		switch {
		case errors.Is(err, syscall.EADDRINUSE):
			return "", errString("address already in use")
		case errors.Is(err, syscall.EADDRNOTAVAIL):
			return "", errString("address not on this machine")
		case errors.Is(err, syscall.EACCES):
			return "", errString("port not allowed (below 1024 needs privileges)")
		case errors.As(err, &dns):
			return "", errString("host not found")
		}
		var se *os.SyscallError
		if errors.As(err, &se) {
			return "", errString(se.Err.Error())
		}
		return "", errString("cannot listen")
	}
	ln.Close()
	return addr, nil
}

// checkScenarioFlags refuses, in one line, the first flag (by name) of
// seen that scenario does not read: offtop and offtop sweep refuse a flag
// only some scenarios read (their registry entries' Flags) given for
// another, rather than ignore it.
func checkScenarioFlags(scenario string, seen map[string]bool) error {
	var names []string
	for n := range seen {
		if takers := scenarios.FlagTakers(n); takers != nil && !slices.Contains(takers, scenario) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	takers, verb := scenarios.FlagTakers(names[0]), "takes"
	if len(takers) > 1 {
		verb = "take"
	}
	return usagef("--%s: only %s %s it, not %s", names[0], strings.Join(takers, " and "), verb, quote(scenario))
}

// errString is an error that is its message.
type errString string

func (e errString) Error() string { return string(e) }
