package main

import (
	"fmt"
	"slices"
	"strings"

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

// listenAddr checks a --listen value (scenarios.CheckListen).
var listenAddr = scenarios.CheckListen

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
