package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/offtop/offtop/internal/decimal"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/sweep"
	"github.com/offtop/offtop/pool"
)

const sweepUsage = `usage: offtop sweep [flags]    run a scenario at several pool sizes, print a table
  --scenario NAME   workload (default server)
  --workers LIST    pool sizes 0..256, e.g. 0,1,2,4,8 (default 0,1,2,4,8)
  --duration D      measured time per size, 1s..24h (default 5s), after a
                    short warm-up
  --scale F         work size multiplier, above 0 up to 1000 (default 1)
  --repeat K        runs of each size (default 3, 1..100), interleaved 1,2,4,1,2,4,...
                    each on a fresh session; a row is the median of its runs
  --load N          start each run N load steps up (] presses; negative: [),
                    -100..100, applied at once, a scenario's last level
                    kept past it; default the scenario's sweep load (io: +2,
                    160 calls/s)
  --fit             fit the USL to throughput (at least 4 sizes of 1 or more)
                    and recommend a size by the scenario's rule
  --hdr-log DIR     write each size's histograms (loop, headline, task; ns) to
                    DIR/SCENARIO-wN.hlog (loopsL-wN, wN-pool, wN-per-task in a
                    comparison) in HdrHistogram's interval log format, each
                    a new file (mode 0644) renamed over whatever stood at the
                    name (a directory there is refused); DIR is checked
                    writable before the first run, and a log that fails
                    later is named under the table ("hdr_log_missing")
  --loops LIST      server: Loop counts 1..8 too, e.g. 1,2: every size at each,
                    rows named as seed 001 names them (plain, cluster,
                    worker_threads, both)
  --per-task        run every size twice: on the pool, then a goroutine per task
  --priority        run every size twice: plain workers, then priority workers
                    (nice 19, GOMAXPROCS raised by the size; Linux), rows
                    named plain and priority, HDR logs wN-priority
  --split, --jobs, --payload, --listen   as for offtop (offtop --help)
  --json            print the result as one JSON object instead of a table;
                    "interrupted": true when a signal stopped the sweep before
                    its last run ("rows": the sizes with a finished run), else false
progress goes to stderr, the table to stdout
` + sweepColumns

// runSweep is `offtop sweep`.
func runSweep(args []string, stdout, stderr io.Writer) int {
	c, asJSON, err := parseSweep(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return printed(fmt.Fprintln(stdout, sweepUsage))(stderr)
	case err != nil:
		return sweepUsageError(stderr, err.Error())
	}
	// A signal stops the sweep after the rows so far, and the exit code
	// says which (130 SIGINT, 143 SIGTERM); a second one exits at once.
	// A terminal (stdin, stdout or stderr) that hangs up, or a failed
	// write of progress to stderr a terminal, is SIGHUP (129).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	hup := watchTerminal(os.Stdin, stdout, stderr)
	defer hup.stop()
	var got atomic.Pointer[os.Signal]
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case sg := <-sig:
			got.Store(&sg)
			cancel()
		case <-hup.Gone():
			var sg os.Signal = syscall.SIGHUP
			got.Store(&sg)
			cancel()
		case <-finished:
			return
		}
		select {
		case sg := <-sig:
			fmt.Fprintf(stderr, "offtop sweep: %v again: exiting at once\n", sg)
			os.Exit(exitCode(asSignalError(sg), io.Discard))
		case <-finished:
		}
	}()
	c.CheckMachine = true
	progress := stderr
	if isTerminal(stderr) {
		progress = failWriter{stderr, hup}
	}
	res, err := sweep.Run(ctx, c, progress)
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "offtop sweep: interrupted; rows so far:")
	} else if err != nil {
		return exitCode(err, stderr)
	}
	var werr error
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		werr = enc.Encode(res)
	} else {
		werr = res.Write(stdout)
	}
	if sg := got.Load(); sg != nil { // the signal's code, the output written or not (a hung-up terminal)
		return exitCode(asSignalError(*sg), stderr)
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
	fs := flag.NewFlagSet("offtop sweep", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.Base.Scenario, "scenario", scenarios.Default, "")
	workers := fs.String("workers", "0,1,2,4,8", "")
	fs.DurationVar(&c.Duration, "duration", 5*time.Second, sweepRange.text)
	fs.Float64Var(&c.Base.Scale, "scale", 1, "")
	fs.BoolVar(&asJSON, "json", false, "")
	repeat := fs.String("repeat", strconv.Itoa(sweep.DefaultRepeat), "")
	fs.Var(decimal.Var(&c.Load, 0), "load", "")
	fs.BoolVar(&c.Fit, "fit", false, "")
	fs.StringVar(&c.HdrLog, "hdr-log", "", "")
	loops := fs.String("loops", "", "")
	fs.BoolVar(&c.PerTask, "per-task", false, "")
	fs.BoolVar(&c.Priority, "priority", false, "")
	checkSeeds := seedFlags(fs, &c.Base, nil)
	fail := func(msg string) (sweep.Config, bool, error) { return c, asJSON, usagef("%s", msg) }
	err = fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return c, asJSON, flag.ErrHelp
	case err != nil:
		return fail(flagError(fs, err))
	case fs.NArg() > 0:
		return fail("unexpected argument: " + quote(fs.Arg(0)))
	}
	if c.Workers, err = sweep.ParseWorkers(*workers); err != nil {
		return fail(fmt.Sprintf("--workers: %s: %s", sweepWorkersReason(err), quote(*workers)))
	}
	seen := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { seen[f.Name] = true })
	if seen["loops"] {
		if c.Loops, err = sweep.ParseLoops(*loops); err != nil {
			why := strings.TrimPrefix(strings.TrimPrefix(err.Error(), sweep.ErrLoops.Error()), ": ")
			return fail(fmt.Sprintf("--loops: %s: %s", why, quote(*loops)))
		}
	}
	if err := checkSeeds(seen); err != nil {
		return fail(err.Error())
	}
	if msg := checkSizing(fs, &c, *repeat); msg != "" {
		return fail(msg)
	}
	if err := sweepRange.check("duration", c.Duration); err != nil {
		// Shorter runs hold fewer samples than a window needs (the
		// session's window is derived from the duration).
		return fail(err.Error())
	}
	if !(c.Base.Scale > 0 && c.Base.Scale <= maxScale) {
		return fail(fmt.Sprintf("--scale: out of range %s: %v", flagRanges()["scale"], c.Base.Scale))
	}
	if _, ok := scenarios.Lookup(c.Base.Scenario); !ok {
		return fail(fmt.Sprintf("--scenario: unknown (have: %s): %s", strings.Join(scenarios.Names(), ", "), quote(c.Base.Scenario)))
	}
	if err := checkScenarioFlags(c.Base.Scenario, seen); err != nil {
		return fail(err.Error())
	}
	if c.Priority && !pool.PriorityAvailable() {
		return fail("--priority: " + pool.ErrPriorityUnavailable.Error())
	}
	return c, asJSON, nil
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
