package main

import (
	"flag"
	"net"
	"strconv"
	"strings"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
)

// seedUsage lists the flags of the seeds' experiments (issue 15), for
// usageText.
const seedUsage = `  --loops N           server: Loops 1..8, connections spread round-robin, as
                      Node's cluster (default 1; l and L change it live)
  --per-task          a goroutine per task, no queue and no bound, instead of
                      the pool (u toggles it)
  --split NAME        count: queue (default), even, slice or chunkify, seed
                      000's splits (p cycles them)
  --jobs N            count: jobs per batch 1..256, submitted at once (default 16)
  --payload KIND      breakeven: bytes (default) or objects, 1M {id, sku, price}
                      serialised with encoding/gob (o switches)
  --listen ADDR       server, io: listen on ADDR (default 127.0.0.1:0; a
                      missing host is 127.0.0.1)
  --no-load           start with the scenario's own clients off (space resumes),
                      to drive offtop's server with autocannon, oha, hey or wrk`

// seedFlags defines the flags of seedUsage on fs into c and returns their
// check: one usage error naming the flag, or nil. With loops nil (offtop
// sweep, which takes --loops as a list and --per-task as "compare both")
// it leaves out --loops, --per-task and --no-load.
func seedFlags(fs *flag.FlagSet, c *session.Config, loops *int) func(seen map[string]bool) error {
	if loops != nil {
		fs.IntVar(loops, "loops", 1, "")
		fs.BoolVar(&c.PerTask, "per-task", false, "")
		fs.BoolVar(&c.NoLoad, "no-load", false, "")
	}
	fs.StringVar(&c.Scenarios.CountSplit, "split", scenarios.SplitQueue, "")
	fs.IntVar(&c.Scenarios.CountJobs, "jobs", 0, "")
	fs.StringVar(&c.Scenarios.BreakevenPayload, "payload", scenarios.PayloadBytes, "")
	fs.StringVar(&c.Scenarios.Listen, "listen", "", "")
	return func(seen map[string]bool) error {
		sc := &c.Scenarios
		if loops != nil {
			if *loops < 1 || *loops > scenarios.MaxLoops {
				return usagef("--loops: out of range 1..%d: %d", scenarios.MaxLoops, *loops)
			}
			sc.ServerLoops = *loops
		}
		if _, err := scenarios.ParseSplit(sc.CountSplit); err != nil {
			return usagef("--split: not one of %s: %s", strings.Join(scenarios.CountSplits, ", "), quote(sc.CountSplit))
		}
		if seen["jobs"] && (sc.CountJobs < 1 || sc.CountJobs > 256) {
			return usagef("--jobs: out of range 1..256: %d", sc.CountJobs)
		}
		if _, err := scenarios.ParsePayload(sc.BreakevenPayload); err != nil {
			return usagef("--payload: not bytes or objects: %s", quote(sc.BreakevenPayload))
		}
		if seen["listen"] {
			addr, err := listenAddr(sc.Listen)
			if err != nil {
				return usagef("--listen: %v: %s", err, quote(sc.Listen))
			}
			sc.Listen = addr
		}
		return nil
	}
}

// listenAddr checks a --listen value, HOST:PORT with PORT 0..65535, and
// gives a missing host as 127.0.0.1 (loopback unless told otherwise).
func listenAddr(s string) (string, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "", errString("not HOST:PORT like 127.0.0.1:17080")
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return "", errString("port not a number 0..65535")
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// errString is an error that is its message.
type errString string

func (e errString) Error() string { return string(e) }
