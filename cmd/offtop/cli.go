package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/term"

	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/decimal"
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

// maxQuoted is how many runes of a typed value a message quotes.
const maxQuoted = 40

// quote is a value the user typed as a message shows it: Go-quoted, so
// control characters (a flag named "-\r"), invisible formatting ones
// (U+202E turns text around) and bytes that are not UTF-8 (0x9b starts a
// terminal escape) are escaped, and cut past maxQuoted runes with its
// length: "99999999...(400 chars)". The value is cut, never the reason
// before it.
func quote(v string) string {
	n := utf8.RuneCountInString(v)
	if n <= maxQuoted {
		return strconv.Quote(v)
	}
	i, k := 0, 0
	for k < maxQuoted {
		_, size := utf8.DecodeRuneInString(v[i:])
		i += size
		k++
	}
	q := strconv.Quote(v[:i])
	return fmt.Sprintf("%s...(%d chars)\"", q[:len(q)-1], n)
}

// oneLine makes a message safe to print on one line: control characters,
// invisible formatting ones and bytes that are not UTF-8 are escaped as Go
// escapes them. Typed values are already quoted and cut (quote), so the
// message itself is never cut.
func oneLine(msg string) string {
	var b strings.Builder
	for i, r := range msg {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(msg[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, msg[i])
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || !unicode.IsPrint(r) && r != ' ':
			q := strconv.QuoteRune(r) // '\r', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

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

var usageText = fmt.Sprintf(`usage: offtop [flags]            live dashboard
       offtop scenarios          list scenarios
       offtop attach ADDR        the dashboard of your program running offtop's
                                 agent (offtop attach --help)
       offtop node -- app.js     a Node.js program with offtop's agent, and its
                                 dashboard (offtop node --help)
       offtop sweep [flags]      run a scenario at several pool sizes, print a table
                                 (offtop sweep --help)
flags:
  --scenario NAME     workload (default server; see 'offtop scenarios')
  --workers N         pool size 0..256, 0 = inline on the Loop (default: suggested)
  --duration D        stop after D, 0..8760h (default 0: run until q)
  --interval D        sample and redraw period, 1ms..1m (default 250ms)
  --resolution D      Loop-delay probe period, 100us..1s (default 10ms)
  --window D          window of percentiles, maxima and rates, --interval..24h
                      and 5 probe periods or more (default 5s)
  --scale F           work size multiplier, above 0 up to 1000 (default 1)
  --gomaxprocs N      start with GOMAXPROCS N (1..NumCPU) to emulate a smaller
                      machine (default: the runtime's; g, G and = change it live)
  --stall D           stall scenario: stall length, 1ms..1m (default 100ms)
  --stall-every D     stall scenario: period, 1ms..1h, at least --stall
                      (default 1s)
%s
  --priority          priority workers: each on a thread at nice 19, GOMAXPROCS
                      raised by the pool's size (Linux; y toggles it)
  --paused            start with the load paused, as space at 0s (space resumes)
  --headless          no TUI: one JSON object per sample on stdout (JSON Lines)
  --keys SCRIPT       timed key steps, e.g. "2s:4 4s:+ 6s:0 8s:q" (below)
  --no-summary        print no summary at the end (stdout in the TUI,
                      stderr with --headless)
  --version           print the version
  --help              this text
keys: + - up down 0-9 a [ ] tab space r d s S c u y l L p o g G = ? q ctrl+c
--keys: steps OFFSET:KEY separated by spaces or commas; OFFSET is a Go
  duration from the start, 0..8760h (0s, 1.5s, 2m), KEY one of the keys above; steps
  run in offset order, equal offsets in written order`, seedUsage)

// shortUsage follows a usage error.
const shortUsage = "usage: offtop [flags] | offtop scenarios  (offtop --help lists the flags)"

// parse turns the command line into options. Errors are *usageError.
func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("offtop", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.session.Scenario, "scenario", scenarios.Default, "")
	fs.Var(decimal.Var(&o.session.Workers, -1), "workers", "")
	fs.DurationVar(&o.duration, "duration", 0, runRange.text)
	fs.DurationVar(&o.session.Interval, "interval", session.DefaultInterval, intervalRange.text)
	fs.DurationVar(&o.session.Resolution, "resolution", session.DefaultResolution, resolutionRange.text)
	fs.DurationVar(&o.session.Window, "window", session.DefaultWindow, windowRange.text)
	fs.Float64Var(&o.session.Scale, "scale", 1, "")
	fs.Var(decimal.Var(&o.session.GOMAXPROCS, 0), "gomaxprocs", "")
	fs.DurationVar(&o.session.Scenarios.StallDuration, "stall", scenarios.DefaultStallDuration, stallRange.text)
	fs.DurationVar(&o.session.Scenarios.StallPeriod, "stall-every", scenarios.DefaultStallPeriod, stallEveryRange.text)
	var loops int
	checkSeeds := seedFlags(fs, &o.session, &loops)
	fs.BoolVar(&o.session.Priority, "priority", false, "")
	fs.BoolVar(&o.session.Paused, "paused", false, "")
	fs.BoolVar(&o.headless, "headless", false, "")
	fs.BoolVar(&o.noSummary, "no-summary", false, "")
	keys := fs.String("keys", "", "")
	showVersion := fs.Bool("version", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, flag.ErrHelp
		}
		return o, usagef("%s", flagError(fs, err))
	}
	if *showVersion {
		return o, errVersion
	}
	if fs.NArg() > 0 {
		return o, usagef("unexpected argument: %s", quote(fs.Arg(0)))
	}
	seen := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { seen[f.Name] = true })
	c := &o.session
	for _, f := range []struct {
		name string
		v    time.Duration
		r    durRange
	}{
		{"duration", o.duration, runRange}, {"interval", c.Interval, intervalRange},
		{"resolution", c.Resolution, resolutionRange}, {"window", c.Window, windowRange},
		{"stall", c.Scenarios.StallDuration, stallRange}, {"stall-every", c.Scenarios.StallPeriod, stallEveryRange},
	} {
		if err := f.r.check(f.name, f.v); err != nil {
			return o, err
		}
	}
	switch {
	case c.Priority && !pool.PriorityAvailable():
		return o, usagef("--priority: %v", pool.ErrPriorityUnavailable)
	case c.Paused && c.NoLoad:
		return o, usagef("--paused with --no-load: --no-load already starts without the scenario's load, its size held")
	case seen["workers"] && (c.Workers < 0 || c.Workers > session.MaxWorkers):
		return o, usagef("--workers: out of range 0..%d: %d", session.MaxWorkers, c.Workers)
	case seen["gomaxprocs"] && (c.GOMAXPROCS < 1 || c.GOMAXPROCS > runtime.NumCPU()):
		return o, usagef("--gomaxprocs: out of range 1..%d (NumCPU): %d", runtime.NumCPU(), c.GOMAXPROCS)
	case c.Interval < c.Resolution:
		return o, tooShort("interval", seen, c.Interval, c.Resolution,
			fmt.Sprintf("the probe's --resolution %v, so samples would come faster than the probe reads the Loop", c.Resolution))
	case c.Window < c.Interval:
		return o, tooShort("window", seen, c.Window, c.Interval, fmt.Sprintf("--interval %v", c.Interval))
	case c.Window < minWindowProbes*c.Resolution:
		return o, tooShort("window", seen, c.Window, minWindowProbes*c.Resolution,
			fmt.Sprintf("%d probe periods (%v at --resolution %v), so its percentiles would hold almost nothing",
				minWindowProbes, minWindowProbes*c.Resolution, c.Resolution))
	case !(c.Scale > 0 && c.Scale <= maxScale):
		return o, usagef("--scale: out of range %s: %v", flagRanges()["scale"], c.Scale)
	case c.Scenarios.StallDuration > c.Scenarios.StallPeriod:
		return o, usagef("--stall: longer than --stall-every %v: %v", c.Scenarios.StallPeriod, c.Scenarios.StallDuration)
	}
	if _, ok := scenarios.Lookup(c.Scenario); !ok {
		return o, usagef("--scenario: unknown (have: %s): %s", strings.Join(scenarios.Names(), ", "), quote(c.Scenario))
	}
	if err := checkSeeds(seen); err != nil {
		return o, err
	}
	if err := checkScenarioFlags(c.Scenario, seen); err != nil {
		return o, err
	}
	if seen["keys"] && *keys == "" {
		return o, usagef("--keys: empty (leave it out to type the keys)")
	}
	steps, err := parseKeys(*keys)
	if err != nil {
		return o, usagef("--keys: %v", err)
	}
	o.keys = steps
	return o, nil
}

var errVersion = errors.New("version")

// durRange is the range lo..hi a duration flag takes; text says it as the
// usage does and is the flag's Usage, for flagReason.
type durRange struct {
	lo, hi time.Duration
	text   string
}

// The duration flags' ranges. Each bound keeps the arithmetic on the
// value (a window from a sweep's duration, a timer, a key's offset from
// the start) far from time.Duration's limit of 2562047h.
var (
	runRange        = durRange{0, 8760 * time.Hour, "0..8760h"} // --duration, a --keys offset
	intervalRange   = durRange{time.Millisecond, time.Minute, "1ms..1m"}
	resolutionRange = durRange{100 * time.Microsecond, time.Second, "100us..1s"}
	windowRange     = durRange{0, 24 * time.Hour, "--interval..24h"} // the lower bound checked against --interval and --resolution
	stallRange      = durRange{time.Millisecond, time.Minute, "1ms..1m"}
	stallEveryRange = durRange{time.Millisecond, time.Hour, "1ms..1h"}
	sweepRange      = durRange{time.Second, 24 * time.Hour, "1s..24h"} // sweep --duration
)

// check is the usage error of a --name of v outside r, or nil.
func (r durRange) check(name string, v time.Duration) error {
	if v < r.lo || v > r.hi {
		return usagef("--%s: out of range %s: %v", name, r.text, v)
	}
	return nil
}

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

// flagRanges are the ranges of the numeric flags, for a value too large to
// parse ("--workers: out of range 0..256: ...").
func flagRanges() map[string]string {
	return map[string]string{
		"workers":    fmt.Sprintf("0..%d", session.MaxWorkers),
		"gomaxprocs": fmt.Sprintf("1..%d (NumCPU)", runtime.NumCPU()),
		"scale":      fmt.Sprintf("(0, %d]", maxScale),
		"loops":      fmt.Sprintf("1..%d", scenarios.MaxLoops),
		"jobs":       "1..256",
		"load":       fmt.Sprintf("-%d..%d", scenarios.MaxLoadSteps, scenarios.MaxLoadSteps),
	}
}

// maxScale is the largest --scale offtop takes, for offtop and sweep alike
// (this project's choice: at 1000 a task of every scenario takes seconds).
const maxScale = 1000

// flagError rewrites the flag package's messages into one line that names
// the flag as the help does (--workers), says what is wrong, then quotes
// the value: "--workers: not a whole number: "abc"".
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	// invalid value "abc" for flag -workers: parse error
	// invalid boolean value "maybe" for -headless: parse error
	for _, pre := range []string{"invalid value ", "invalid boolean value "} {
		rest, ok := strings.CutPrefix(msg, pre)
		if !ok {
			continue
		}
		val, err := strconv.QuotedPrefix(rest)
		if err != nil {
			break
		}
		v, _ := strconv.Unquote(val)
		rest = strings.TrimPrefix(strings.TrimPrefix(rest[len(val):], " for flag -"), " for -")
		name, why, _ := strings.Cut(rest, ":")
		return fmt.Sprintf("--%s: %s: %s", name, flagReason(fs.Lookup(name), strings.TrimSpace(why), v), quote(v))
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag: " + quote("--"+name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Sprintf("--%s: needs a value", name)
	}
	if arg, ok := strings.CutPrefix(msg, "bad flag syntax: "); ok {
		return "bad flag syntax: " + quote(arg)
	}
	return msg
}

// outOfRange is "out of range" and the flag's range where flagRanges has it.
func outOfRange(name string) string {
	if r, ok := flagRanges()[name]; ok {
		return "out of range " + r
	}
	return "out of range"
}

// flagReason says what is wrong with the value v that f's parser
// refused; why is the parser's word for it ("parse error", "value out of
// range").
func flagReason(f *flag.Flag, why, v string) string {
	var cur any
	if f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			cur = g.Get()
		}
	}
	switch cur.(type) {
	case bool:
		return "not true or false"
	case time.Duration:
		if f.Usage != "" && durationShape.MatchString(v) {
			return "out of range " + f.Usage // too long for a time.Duration
		}
		return durationReason(v)
	case int:
		if why == "value out of range" {
			return outOfRange(f.Name)
		}
		return "not a whole number"
	case float64:
		if why == "value out of range" {
			return outOfRange(f.Name)
		}
		return "not a number"
	}
	return why
}

// durationShape is the syntax time.ParseDuration reads: a sign, then one
// or more decimal numbers, each with its unit.
var durationShape = regexp.MustCompile(`^[-+]?((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$`)

// durationReason says why v, which time.ParseDuration refused, is not a
// duration: written as one but too long for a time.Duration (whose
// error says "invalid duration" for that too), or not written as one.
func durationReason(v string) string {
	if durationShape.MatchString(v) {
		return fmt.Sprintf("out of range (at most %dh)", int64(math.MaxInt64/time.Hour))
	}
	return "not a duration like 2s or 1500ms"
}

// run is main without os.Exit: it returns the exit code. A panic on any
// goroutine offtop starts (crash.Go, crash.Recover), this one included,
// ends the run with the terminal restored, one line on stderr and exit 1.
func run(args []string, stdout, stderr io.Writer) (code int) {
	cr := newCrasher(stderr)
	defer crash.SetHandler(cr.handle)()
	defer func() {
		if cr.isCrashed() {
			code = cr.fail()
		}
	}()
	defer crash.Recover()
	if len(args) > 0 && args[0] == "sweep" {
		return runSweep(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "attach" {
		return runAttach(args[1:], stdout, stderr, cr)
	}
	if len(args) > 0 && args[0] == "node" {
		return runNode(args[1:], stdout, stderr, cr)
	}
	if len(args) > 0 && args[0] == "scenarios" {
		if len(args) > 1 {
			fmt.Fprintf(stderr, "offtop scenarios: unexpected argument: %s\n%s\n", oneLine(quote(args[1])), shortUsage)
			return exitUsage
		}
		var b strings.Builder
		for _, n := range scenarios.Names() {
			fmt.Fprintf(&b, "%-10s %s\n", n, scenarios.Summary(n))
		}
		return printed(io.WriteString(stdout, b.String()))(stderr)
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
	if o.headless {
		err = runHeadless(o, stdout, stderr, cr)
	} else {
		if !isTerminal(stdout) {
			fmt.Fprintln(stderr, "offtop: stdout is not a terminal; use --headless for JSON Lines")
			return exitUsage
		}
		err = runTUI(o, stdout, cr)
	}
	if cr.isCrashed() {
		return cr.fail()
	}
	return exitCode(err, stderr)
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

// stopSignals are the signals that end a run, the terminal restored.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// asSignalError converts a received signal for exitCode.
func asSignalError(s os.Signal) error {
	if ss, ok := s.(syscall.Signal); ok {
		return &signalError{ss}
	}
	return nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}
