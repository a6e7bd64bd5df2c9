package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/offtop/offtop/internal/cliflag"
	"github.com/offtop/offtop/internal/jobctl"
	"github.com/offtop/offtop/internal/lifecycle"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sweep"
	"github.com/offtop/offtop/pool"
)

// sweepUsage is offtop sweep --help, generated from its flags.
var sweepUsage = func() string {
	var c sweep.Config
	fs, _, _, _, _ := sweepFlags(&c, new(bool))
	return "usage: offtop sweep [flags]    run a scenario at several pool sizes, print a table\n" +
		fs.Usage("scenario", "workers", "duration", "scale", "repeat", "load", "fit", "hdr-log", "loops", "per-task", "priority",
			"attach", "route", "token",
			"", "  --split, --jobs, --payload, --listen, --allow-remote   as for offtop (offtop --help)", "json") +
		"\nprogress goes to stderr, the table to stdout\n" + sweepColumns
}()

// sweepFlags defines sweep's flags into c and asJSON: the values of
// --workers, --repeat and --loops, and the check of the seeds' flags.
// --load is read later (sweepAttach.loadValue): steps, or with --attach
// a SPEC.
func sweepFlags(c *sweep.Config, asJSON *bool) (fs *cliflag.Set, workers, repeat, loops *string, checkSeeds func(map[string]bool) error) {
	return sweepFlagsInto(c, asJSON, new(sweepAttach))
}

// sweepFlagsInto is sweepFlags with --attach, --route, --token and the
// raw --load into at.
func sweepFlagsInto(c *sweep.Config, asJSON *bool, at *sweepAttach) (fs *cliflag.Set, workers, repeat, loops *string, checkSeeds func(map[string]bool) error) {
	fs = cliflag.New("offtop sweep")
	fs.StringVar(&c.Base.Scenario, "scenario", scenarios.Default, "`NAME` workload")
	workers = fs.String("workers", "0,1,2,4,8", fmt.Sprintf("`LIST` pool sizes 0..%d, e.g. 0,1,2,4,8", session.MaxWorkers))
	durFlag(fs, &c.Duration, "duration", 5*time.Second, sweepRange, "`D` measured time per size, RANGE, after a short warm-up")
	fs.Float64Var(&c.Base.Scale, "scale", 1, fmt.Sprintf("`F` work size multiplier, above 0 up to %d", maxScale))
	fs.Range("scale", session.ScaleRange)
	repeat = fs.String("repeat", strconv.Itoa(sweep.DefaultRepeat), fmt.Sprintf("`K` runs of each size, 1..%d, interleaved 1,2,4,1,2,4,... each on a fresh session; a row is the median of its runs", sweep.MaxRepeat))
	at.steps = &c.Load
	fs.Var(at, "load", fmt.Sprintf("`N` start each run N load steps up (] presses; negative: [), -%d..%d, applied at once, a scenario's last level kept past it (default: the scenario's sweep load; io: +2, 160 calls/s); with --attach: SPEC, the HTTP load held at every size, as attach --load's", scenarios.MaxLoadSteps, scenarios.MaxLoadSteps))
	fs.Range("load", fmt.Sprintf("-%d..%d", scenarios.MaxLoadSteps, scenarios.MaxLoadSteps))
	fs.BoolVar(&c.Fit, "fit", false, "fit the USL to throughput (at least 4 sizes of 1 or more) and recommend a size by the scenario's rule")
	fs.StringVar(&c.HdrLog, "hdr-log", "", "`DIR` write each size's histograms (loop, headline, task; ns) to DIR/SCENARIO-wN.hlog (loopsL-wN, wN-pool, wN-per-task in a comparison) in HdrHistogram's interval log format, each a new file (mode 0644) renamed over whatever stood at the name (a directory there is refused); DIR is checked writable before the first run, and a log that fails later is named under the table (\"hdr_log_missing\")")
	loops = fs.String("loops", "", fmt.Sprintf("`LIST` server: Loop counts 1..%d too, e.g. 1,2: every size at each, rows named as seed 001 names them (plain, cluster, worker_threads, both)", scenarios.MaxLoops))
	fs.BoolVar(&c.PerTask, "per-task", false, "run every size twice: on the pool, then a goroutine per task")
	fs.BoolVar(&c.Priority, "priority", false, "run every size twice: plain workers, then priority workers (nice 19, GOMAXPROCS raised by the size; Linux), rows named plain and priority, HDR logs wN-priority")
	fs.StringVar(&at.addr, "attach", "", "`ADDR` sweep the program whose agent is at ADDR instead of a scenario: its pool resized through the agent over --workers, each size held under --load SPEC, the pick by the --route target's client p99 (--fit implied); its size before is set back at the end, and on a signal")
	fs.StringVar(&at.route, "route", "", "`PATH` with --attach: the --load target whose p99 is the headline and picks the size (default: the first)")
	fs.StringVar(&at.token, "token", "", "`T` with --attach: the agent's control token (default: its token file, as attach reads it)")
	checkSeeds = seedFlags(fs, &c.Base, nil)
	fs.BoolVar(asJSON, "json", false, "print the result as one JSON object instead of a table; \"interrupted\": true when a signal stopped the sweep before its last run (\"rows\": the sizes with a finished run), else false")
	return fs, workers, repeat, loops, checkSeeds
}

// runSweep is `offtop sweep`.
func runSweep(args []string, stdout, stderr io.Writer) int {
	c, asJSON, at, err := parseSweepAttach(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return printed(fmt.Fprintln(stdout, sweepUsage))(stderr)
	case err != nil:
		return sweepUsageError(stderr, err.Error())
	}
	if at.addr != "" {
		stop, err := at.open(&c)
		if err != nil {
			fmt.Fprintf(stderr, "offtop sweep: %s\n", oneLine(err.Error()))
			return exitUsage
		}
		defer stop()
	}
	// A signal stops the sweep after the rows so far, and the exit code
	// says which (130 SIGINT, 143 SIGTERM); a second one exits at once.
	// A terminal (stdin, stdout or stderr) that hangs up, or a failed
	// write of progress to stderr a terminal, is SIGHUP (129).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	hup := jobctl.WatchTerminal(os.Stdin, stdout, stderr)
	defer hup.Stop()
	stops := lifecycle.WatchStops(hup, sig, func() bool { return true }, cancel,
		func(sg os.Signal) {
			fmt.Fprintf(stderr, "offtop sweep: %v again: exiting at once\n", sg)
			at.restoreNow(stderr)
			os.Exit(exitCode(asSignalError(sg), io.Discard))
		})
	defer stops.End()
	c.CheckMachine = true
	progress := stderr
	if jobctl.IsTerminal(stderr) {
		progress = jobctl.FailWriter{W: stderr, Hup: hup}
	}
	res, err := sweep.Run(ctx, c, progress)
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "offtop sweep: interrupted; rows so far:")
	} else if err != nil {
		code := exitCode(err, stderr)
		if a := res.Attach; a != nil { // the program went away: was its pool set back?
			fmt.Fprintln(stderr, "offtop sweep: "+a.RestoreLine())
		}
		return code
	}
	var werr error
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		werr = enc.Encode(res)
	} else {
		werr = res.Write(stdout)
	}
	if sg := stops.Signal(); sg != nil { // the signal's code, the output written or not (a hung-up terminal)
		return exitCode(asSignalError(sg), stderr)
	}
	if werr != nil {
		return exitCode(writeErr(werr), stderr)
	}
	if len(res.HdrLogMissing) > 0 { // the table or JSON says why
		var paths []string
		for _, m := range res.HdrLogMissing {
			paths = append(paths, m.Path)
		}
		fmt.Fprintf(stderr, "offtop sweep: HDR logs not written: %s\n", strings.Join(paths, ", "))
		return exitError
	}
	return exitOK
}

// parseSweep turns sweep's command line into its config and --json.
// Errors are *usageError, one line each, or flag.ErrHelp.
func parseSweep(args []string) (c sweep.Config, asJSON bool, err error) {
	c, asJSON, _, err = parseSweepAttach(args)
	return c, asJSON, err
}

// parseSweepAttach is parseSweep with --attach's settings.
func parseSweepAttach(args []string) (c sweep.Config, asJSON bool, at *sweepAttach, err error) {
	at = new(sweepAttach)
	fs, workers, repeat, loops, checkSeeds := sweepFlagsInto(&c, &asJSON, at)
	fail := func(msg string) (sweep.Config, bool, *sweepAttach, error) { return c, asJSON, at, usagef("%s", msg) }
	err = fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return c, asJSON, at, flag.ErrHelp
	case err != nil:
		return fail(fs.Error(err).Error())
	case fs.NArg() > 0:
		return fail("unexpected argument: " + quote(fs.Arg(0)))
	}
	seen := fs.Seen()
	if err := at.check(fs, seen); err != nil {
		return fail(err.Error())
	}
	if c.Workers, err = sweep.ParseWorkers(*workers); err != nil {
		return fail(fmt.Sprintf("--workers: %s: %s", sweepWorkersReason(err), quote(*workers)))
	}
	if seen["loops"] {
		if c.Loops, err = sweep.ParseLoops(*loops); err != nil {
			why := strings.TrimPrefix(strings.TrimPrefix(err.Error(), sweep.ErrLoops.Error()), ": ")
			return fail(fmt.Sprintf("--loops: %s: %s", why, quote(*loops)))
		}
	}
	if err := checkSeeds(seen); err != nil {
		return fail(err.Error())
	}
	if at.addr != "" {
		seen = maps.Clone(seen)
		delete(seen, "load") // a SPEC, checked above: no steps
	}
	if msg := checkSizing(seen, &c, *repeat, at.addr != ""); msg != "" {
		return fail(msg)
	}
	if err := fs.Check(); err != nil {
		// Shorter runs hold fewer samples than a window needs (the
		// session's window is derived from the duration).
		return fail(err.Error())
	}
	if err := checkWorkload(&c.Base, seen); err != nil {
		return fail(err.Error())
	}
	if c.Priority && !pool.PriorityAvailable() {
		return fail("--priority: " + pool.ErrPriorityUnavailable.Error())
	}
	if at.addr != "" {
		c.Load = 0
	}
	return c, asJSON, at, nil
}

// sweepWorkersReason is ParseWorkers' error without its prefix.
func sweepWorkersReason(err error) string {
	return strings.TrimPrefix(strings.TrimPrefix(err.Error(), sweep.ErrWorkers.Error()), ": ")
}

// sweepShortUsage follows a sweep's usage error.
const sweepShortUsage = "usage: offtop sweep [--scenario NAME] [--workers 0,1,2,4,8] [--duration 5s] [--json]"

func sweepUsageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "offtop sweep: %s\n%s\n", oneLine(msg), sweepShortUsage)
	return exitUsage
}
