package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/offtop/offtop/internal/cliflag"
	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/decimal"
	"github.com/offtop/offtop/internal/jobctl"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/pool"
)

// version is offtop's version; set with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes: the one place errors become codes.
const (
	exitOK    = 0
	exitError = 1 // the run failed
	exitUsage = 2 // bad input: flags, values, no terminal
)

// usageError is bad input: one line on stderr, then exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef formats a usage error, on one line (see oneLine). A value the
// user typed goes in through quote, after the reason: "--workers: out of
// range 0..256: 300".
func usagef(format string, a ...any) error {
	return &usageError{oneLine(fmt.Sprintf(format, a...))}
}

// The one-line forms of what the user typed (cliflag).
var (
	quote          = cliflag.Quote
	oneLine        = cliflag.OneLine
	durationReason = cliflag.DurationReason
	durationShape  = cliflag.DurationShape
)

// options is everything the flags say.
type options struct {
	session   session.Config
	duration  time.Duration
	headless  bool
	noSummary bool
	keys      []step
	// attach, when set, runs the front ends against an agent (attach.go).
	attach *attachOptions
}

// command is a subcommand: offtop NAME ARGS.
type command struct {
	name, args, brief string
	help              bool // it has its own --help
	run               func(args []string, stdout, stderr io.Writer, cr *crasher) int
}

// commands are offtop's subcommands, in the usage's order.
var commands = []command{
	{"scenarios", "", "list scenarios", false, runScenarios},
	{"attach", "ADDR", "the dashboard of your program running offtop's agent", true, runAttach},
	{"node", "-- app.js", "a Node.js program with offtop's agent, and its dashboard", true, runNode},
	{"sweep", "[flags]", "run a scenario at several pool sizes, print a table", true,
		func(args []string, stdout, stderr io.Writer, _ *crasher) int { return runSweep(args, stdout, stderr) }},
}

// keysLanguage is --help's text on the --keys language, under the keys.
const keysLanguage = `--keys: steps OFFSET:KEY separated by spaces or commas; OFFSET is a Go
  duration from the start, 0..8760h (0s, 1.5s, 2m), KEY one of the keys above; steps
  run in offset order, equal offsets in written order`

// usageText is offtop --help, generated from the flags' registrations.
var usageText = func() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-33s%s\n", "usage: offtop [flags]", "live dashboard")
	for _, c := range commands {
		brief := c.brief
		if c.help {
			brief += " (offtop " + c.name + " --help)"
		}
		b.WriteString(cliflag.Line(strings.TrimRight("       offtop "+c.name+" "+c.args, " "), brief, 33))
	}
	fs, _, _, _ := offtopFlags(new(options))
	b.WriteString("flags:\n" + fs.Usage("scenario", "workers", "duration", "interval", "resolution", "window", "scale",
		"gomaxprocs", "stall", "stall-every", "loops", "per-task", "split", "jobs", "payload", "listen", "allow-remote", "no-load", "priority", "paused",
		"headless", "keys", "no-summary", "version", "", "  --help              this text") + "\n")
	b.WriteString(keysUsage() + "\n" + keysLanguage)
	return b.String()
}()

// shortUsage follows a usage error.
const shortUsage = "usage: offtop [flags] | offtop scenarios  (offtop --help lists the flags)"

// durFlag defines a duration flag of range r, said in usage for RANGE.
func durFlag(fs *cliflag.Set, p *time.Duration, name string, def time.Duration, r durRange, usage string) {
	fs.DurationVar(p, name, def, r.lo, r.hi, r.text, strings.Replace(usage, "RANGE", r.text, 1))
}

// frontFlags defines the flags of a run's front end, offtop's and
// attach's: --headless, --keys (into keys), --duration, --interval,
// --no-summary. interval is --interval's text.
func frontFlags(fs *cliflag.Set, o *options, keys *string, interval string) {
	fs.BoolVar(&o.headless, "headless", false, "no TUI: one JSON object per sample on stdout (JSON Lines)")
	fs.StringVar(keys, "keys", "", "`SCRIPT` timed key steps, e.g. \"2s:4 4s:+ 6s:0 8s:q\" (below)")
	durFlag(fs, &o.duration, "duration", 0, runRange, "`D` stop after D, RANGE; 0: run until q")
	durFlag(fs, &o.session.Interval, "interval", session.DefaultInterval, intervalRange, interval)
	fs.BoolVar(&o.noSummary, "no-summary", false, "print no summary at the end (stdout in the TUI, stderr with --headless)")
}

// offtopFlags defines offtop's flags into o: the value of --keys, of
// --loops, and of --version.
func offtopFlags(o *options) (fs *cliflag.Set, keys *string, check func(map[string]bool) error, version *bool) {
	fs = cliflag.New("offtop")
	c := &o.session
	fs.StringVar(&c.Scenario, "scenario", scenarios.Default, "`NAME` workload (see 'offtop scenarios')")
	fs.Var(decimal.Var(&c.Workers, -1), "workers", fmt.Sprintf("`N` pool size 0..%d, 0 = inline on the Loop (default: the scenario's own, login's and io's 4, else suggested)", session.MaxWorkers))
	fs.Range("workers", session.WorkersRange)
	keys = new(string)
	frontFlags(fs, o, keys, "`D` sample and redraw period, RANGE")
	durFlag(fs, &c.Resolution, "resolution", session.DefaultResolution, resolutionRange, "`D` Loop-delay probe period, RANGE")
	durFlag(fs, &c.Window, "window", session.DefaultWindow, windowRange,
		fmt.Sprintf("`D` window of percentiles, maxima and rates, RANGE and %d probe periods or more", minWindowProbes))
	fs.Float64Var(&c.Scale, "scale", 1, fmt.Sprintf("`F` work size multiplier, above 0 up to %d", maxScale))
	fs.Range("scale", session.ScaleRange)
	fs.Var(decimal.Var(&c.GOMAXPROCS, 0), "gomaxprocs",
		"start with GOMAXPROCS `N` (1..NumCPU) to emulate a smaller machine (default: the runtime's; g, G and = change it live)")
	fs.Range("gomaxprocs", fmt.Sprintf("1..%d (NumCPU)", runtime.NumCPU()))
	durFlag(fs, &c.Scenarios.StallDuration, "stall", scenarios.DefaultStallDuration, stallRange, "`D` stall scenario: stall length, RANGE")
	durFlag(fs, &c.Scenarios.StallPeriod, "stall-every", scenarios.DefaultStallPeriod, stallEveryRange, "`D` stall scenario: period, RANGE, at least --stall")
	var loops int
	check = seedFlags(fs, c, &loops)
	fs.BoolVar(&c.Priority, "priority", false, "priority workers: each on a thread at nice 19, GOMAXPROCS raised by the pool's size (Linux; y toggles it)")
	fs.BoolVar(&c.Paused, "paused", false, "start with the load paused, as space at 0s (space resumes)")
	version = fs.Bool("version", false, "print the version")
	return fs, keys, check, version
}

// parse turns the command line into options. Errors are *usageError.
func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs, keys, checkSeeds, showVersion := offtopFlags(&o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, flag.ErrHelp
		}
		return o, usagef("%s", fs.Error(err))
	}
	if *showVersion {
		return o, errVersion
	}
	if fs.NArg() > 0 {
		return o, usagef("unexpected argument: %s", quote(fs.Arg(0)))
	}
	if err := fs.Check(); err != nil {
		return o, usagef("%v", err)
	}
	seen := fs.Seen()
	c := &o.session
	if err := checkSession(c, seen); err != nil {
		return o, err
	}
	if err := checkSeeds(seen); err != nil {
		return o, err
	}
	if err := checkWorkload(c, seen); err != nil {
		return o, err
	}
	steps, err := keySteps(*keys, seen)
	o.keys = steps
	return o, err
}

// checkSession checks what the session's flags say together; the bounds
// of a Config's fields are session's (Config.Validate's checks).
func checkSession(c *session.Config, seen map[string]bool) error {
	switch {
	case c.Priority && !pool.PriorityAvailable():
		return usagef("--priority: %v", pool.ErrPriorityUnavailable)
	case c.Paused && c.NoLoad:
		return usagef("--paused with --no-load: --no-load already starts without the scenario's load, its size held")
	case seen["workers"] && c.Workers < 0: // the Config's suggested size: no --workers
		return usagef("--workers: out of range %s: %d", session.WorkersRange, c.Workers)
	}
	if err := session.CheckWorkers(c.Workers); err != nil {
		return flagError(err, seen)
	}
	switch {
	case seen["gomaxprocs"] && (c.GOMAXPROCS < 1 || c.GOMAXPROCS > runtime.NumCPU()):
		return usagef("--gomaxprocs: out of range 1..%d (NumCPU): %d", runtime.NumCPU(), c.GOMAXPROCS)
	case c.Interval < c.Resolution:
		return tooShort("interval", seen, c.Interval, c.Resolution,
			fmt.Sprintf("the probe's --resolution %v, so samples would come faster than the probe reads the Loop", c.Resolution))
	}
	if err := session.CheckSampling(c.Interval, c.Resolution, c.Window); err != nil {
		return flagError(err, seen)
	}
	switch {
	case c.Window < minWindowProbes*c.Resolution:
		return tooShort("window", seen, c.Window, minWindowProbes*c.Resolution,
			fmt.Sprintf("%d probe periods (%v at --resolution %v), so its percentiles would hold almost nothing",
				minWindowProbes, minWindowProbes*c.Resolution, c.Resolution))
	case c.Scenarios.StallDuration > c.Scenarios.StallPeriod:
		return usagef("--stall: longer than --stall-every %v: %v", c.Scenarios.StallPeriod, c.Scenarios.StallDuration)
	}
	return nil
}

// flagError is err, an error of session's checks, said of the flag that
// sets the field: "--scale: out of range (0, 1000]: 0".
func flagError(err error, seen map[string]bool) error {
	var ce *session.ConfigError
	switch {
	case !errors.As(err, &ce):
		return usagef("%v", err)
	case ce.Than != "":
		v, _ := ce.Value.(time.Duration)
		return tooShort(ce.Field, seen, v, ce.Least, fmt.Sprintf("--%s %v", ce.Than, ce.Least))
	}
	return usagef("--%s: out of range %s: %v", ce.Field, ce.Range, ce.Value)
}

// checkWorkload checks --scale and --scenario, and that every flag given
// is one the scenario reads: offtop's and sweep's alike.
func checkWorkload(c *session.Config, seen map[string]bool) error {
	if err := session.CheckScale(c.Scale); err != nil {
		return flagError(err, seen)
	}
	if _, ok := scenarios.Lookup(c.Scenario); !ok {
		return usagef("--scenario: unknown (have: %s): %s", strings.Join(scenarios.Names(), ", "), quote(c.Scenario))
	}
	return checkScenarioFlags(c.Scenario, seen)
}

// keySteps reads --keys (script): an empty one given is an error.
func keySteps(script string, seen map[string]bool) ([]step, error) {
	if seen["keys"] && script == "" {
		return nil, usagef("--keys: empty (leave it out to type the keys)")
	}
	steps, err := parseKeys(script)
	if err != nil {
		return nil, usagef("--keys: %v", err)
	}
	return steps, nil
}

var errVersion = errors.New("version")

// durRange is the range lo..hi a duration flag takes; text says it as the
// usage does.
type durRange struct {
	lo, hi time.Duration
	text   string
}

// The duration flags' ranges. Each bound keeps the arithmetic on the
// value (a window from a sweep's duration, a timer, a key's offset from
// the start) far from time.Duration's limit of 2562047h.
var (
	runRange        = durRange{0, 8760 * time.Hour, "0..8760h"} // --duration, a --keys offset
	intervalRange   = durRange{session.MinInterval, time.Minute, "1ms..1m"}
	resolutionRange = durRange{session.MinResolution, time.Second, "100us..1s"}
	windowRange     = durRange{0, 24 * time.Hour, "--interval..24h"} // the lower bound checked against --interval and --resolution
	stallRange      = durRange{time.Millisecond, time.Minute, "1ms..1m"}
	stallEveryRange = durRange{time.Millisecond, time.Hour, "1ms..1h"}
	sweepRange      = durRange{time.Second, 24 * time.Hour, "1s..24h"} // sweep --duration
)

// tooShort is the usage error of a --name of v shorter than it may be
// beside other flags (than, "--interval 250ms"), least the shortest it
// may be. A value the user gave is quoted last, as every typed value is;
// one left at its default is named as the default, which the user never
// typed: "--interval 250ms (the default) is shorter than ...".
func tooShort(name string, seen map[string]bool, v, least time.Duration, than string) error {
	if seen[name] {
		return usagef("--%s: shorter than %s: %v", name, than, v)
	}
	return usagef("--%s %v (the default) is shorter than %s: give --%s %v or more", name, v, than, name, least)
}

// minWindowProbes is the fewest probe periods a --window may span: fewer,
// and its percentiles hold a handful of samples, or none (--window 1ms at
// a 10ms resolution read null in every sample).
const minWindowProbes = 5

// maxScale is the largest --scale offtop and sweep take.
const maxScale = session.MaxScale

// run is main without os.Exit: it returns the exit code. A panic on any
// goroutine offtop starts (crash.Go, crash.Recover), this one included,
// ends the run with the terminal restored, one line on stderr and exit 1.
func run(args []string, stdout, stderr io.Writer) (code int) {
	cr := newCrasher(stderr)
	defer crash.SetHandler(cr.Handle)()
	defer func() {
		if cr.IsCrashed() {
			code = cr.Fail()
		}
	}()
	defer crash.Recover()
	if len(args) > 0 {
		for _, c := range commands {
			if args[0] == c.name {
				return c.run(args[1:], stdout, stderr, cr)
			}
		}
	}
	o, err := parse(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return printed(fmt.Fprintln(stdout, usageText))(stderr)
	case errors.Is(err, errVersion):
		return printed(fmt.Fprintln(stdout, "offtop", version))(stderr)
	case err != nil:
		fmt.Fprintf(stderr, "offtop: %v\n%s\n", err, shortUsage)
		return exitUsage
	}
	for _, note := range costNotes(o) {
		fmt.Fprintln(stderr, "offtop: "+note)
	}
	if !o.headless && !jobctl.IsTerminal(stdout) {
		fmt.Fprintln(stderr, "offtop: stdout is not a terminal; use --headless for JSON Lines")
		return exitUsage
	}
	return runFront(o, stdout, stderr, cr)
}

// runScenarios is offtop scenarios: each scenario's name and summary.
func runScenarios(args []string, stdout, stderr io.Writer, _ *crasher) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "offtop scenarios: unexpected argument: %s\n%s\n", oneLine(quote(args[0])), shortUsage)
		return exitUsage
	}
	var b strings.Builder
	for _, n := range scenarios.Names() {
		fmt.Fprintf(&b, "%-10s %s\n", n, scenarios.Summary(n))
	}
	return printed(io.WriteString(stdout, b.String()))(stderr)
}

// printed turns the result of writing a command's whole output (--help,
// --version, scenarios) into its exit code: 0, or 1 with one line on
// stderr when stdout refused it (/dev/full). A closed pipe is the
// reader's wish to stop: 0.
func printed(_ int, err error) func(stderr io.Writer) int {
	return func(stderr io.Writer) int { return exitCode(writeErr(err), stderr) }
}

// Measured costs of the observer (bench: offtop paused, on the 2-core VM,
// CPU time over wall): each of the two probes wakes once per --resolution
// for about 15us (resolution 1ms: 5% of a core, 500us: 8%, 100us: 26%, 47%
// on a busy machine); each sample costs about 0.25ms headless and 1.2ms in
// the dashboard (interval 10ms: 3.6% headless, 11% in the TUI; 1ms: 22%
// headless, a whole core in the TUI).
const (
	probeWakeCost   = 15 * time.Microsecond
	sampleCost      = 250 * time.Microsecond
	sampleCostTUI   = 1200 * time.Microsecond
	cheapResolution = time.Millisecond
	cheapInterval   = 50 * time.Millisecond
)

// costNotes are the lines said (on stderr, before the run) about settings
// that cost much: a --resolution below 1ms or an --interval below 50ms,
// each with its expected cost in a share of one core.
func costNotes(o options) []string {
	var notes []string
	c := o.session
	if c.Resolution < cheapResolution {
		wakes := 2 * float64(time.Second) / float64(c.Resolution)
		notes = append(notes, fmt.Sprintf("--resolution %v: the two probes wake %.0f times a second, costing about %.0f%% of a core (%v or more: under 5%%)",
			c.Resolution, wakes, 100*wakes*probeWakeCost.Seconds(), cheapResolution))
	}
	if c.Interval < cheapInterval {
		per, where := sampleCost, "headless"
		if !o.headless {
			per, where = sampleCostTUI, "in the dashboard"
		}
		rate := float64(time.Second) / float64(c.Interval)
		notes = append(notes, fmt.Sprintf("--interval %v: %.0f samples a second cost about %.0f%% of a core %s (%v or more: under 3%%)",
			c.Interval, rate, 100*rate*per.Seconds(), where, cheapInterval))
	}
	return notes
}

// exitCode maps a run's error to an exit code, printing it on one line.
func exitCode(err error, stderr io.Writer) int {
	var (
		ue *usageError
		se *signalError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue), errors.Is(err, session.ErrConfig):
		fmt.Fprintf(stderr, "offtop: %v\n", err)
		return exitUsage
	case errors.As(err, &se):
		return 128 + int(se.sig)
	default:
		fmt.Fprintf(stderr, "offtop: %v\n", err)
		return exitError
	}
}

// signalError ends a run stopped by a signal: the exit code is 128 + the
// signal's number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), the
// shell's convention; q, ctrl+c typed as a key and --duration exit 0.
type signalError struct{ sig syscall.Signal }

func (e *signalError) Error() string { return "stopped by " + e.sig.String() }

// asSignalError converts a received signal for exitCode.
func asSignalError(s os.Signal) error {
	if ss, ok := s.(syscall.Signal); ok {
		return &signalError{ss}
	}
	return nil
}
