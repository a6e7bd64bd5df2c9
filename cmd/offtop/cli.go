package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/term"

	"github.com/offtop/offtop/internal/crash"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
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

// usagef formats a usage error, on one line (see oneLine).
func usagef(format string, a ...any) error {
	return &usageError{oneLine(fmt.Sprintf(format, a...))}
}

// oneLine makes a message that names the input safe to print on one line
// whatever was typed: control characters (a flag named "-\r", say),
// invisible formatting ones (U+202E turns text around) and bytes that are
// not UTF-8 (0x9b starts a terminal escape) are escaped as Go escapes them,
// and a message longer than maxMessage runes is cut, ending in "...".
func oneLine(msg string) string {
	const maxMessage = 300
	var b strings.Builder
	n := 0
	for i, r := range msg {
		if n++; n > maxMessage {
			b.WriteString("...")
			break
		}
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
}

var usageText = fmt.Sprintf(`usage: offtop [flags]            live dashboard
       offtop scenarios          list scenarios
       offtop sweep [flags]      run a scenario at several pool sizes, print a table
                                 (offtop sweep --help)
flags:
  --scenario NAME     workload (default server; see 'offtop scenarios')
  --workers N         pool size 0..256, 0 = inline on the Loop (default: suggested)
  --duration D        stop after D (default: run until q)
  --interval D        sample and redraw period (default 250ms)
  --resolution D      Loop-delay probe period (default 10ms)
  --window D          sliding window of percentiles (default 5s)
  --scale F           work size multiplier (default 1)
  --gomaxprocs N      start with GOMAXPROCS N (1..NumCPU) to emulate a smaller
                      machine (default: the runtime's; g, G and = change it live)
  --stall D           stall scenario: stall length (default 100ms)
  --stall-every D     stall scenario: period (default 1s)
%s
  --headless          no TUI: one JSON object per sample on stdout (JSON Lines)
  --keys SCRIPT       timed key steps, e.g. "2s:4 4s:+ 6s:0 8s:q" (below)
  --no-summary        print no summary at the end (stdout in the TUI,
                      stderr with --headless)
  --version           print the version
  --help              this text
keys: + - up down 0-9 [ ] tab space r s S c u l L p o g G = ? q ctrl+c
--keys: steps OFFSET:KEY separated by spaces or commas; OFFSET is a Go
  duration from the start (0s, 1.5s, 2m), KEY one of the keys above; steps
  run in offset order, equal offsets in written order`, seedUsage)

// shortUsage follows a usage error.
const shortUsage = "usage: offtop [flags] | offtop scenarios  (offtop --help lists the flags)"

// parse turns the command line into options. Errors are *usageError.
func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("offtop", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.session.Scenario, "scenario", scenarios.Default, "")
	fs.IntVar(&o.session.Workers, "workers", -1, "")
	fs.DurationVar(&o.duration, "duration", 0, "")
	fs.DurationVar(&o.session.Interval, "interval", session.DefaultInterval, "")
	fs.DurationVar(&o.session.Resolution, "resolution", session.DefaultResolution, "")
	fs.DurationVar(&o.session.Window, "window", session.DefaultWindow, "")
	fs.Float64Var(&o.session.Scale, "scale", 1, "")
	fs.IntVar(&o.session.GOMAXPROCS, "gomaxprocs", 0, "")
	fs.DurationVar(&o.session.Scenarios.StallDuration, "stall", scenarios.DefaultStallDuration, "")
	fs.DurationVar(&o.session.Scenarios.StallPeriod, "stall-every", scenarios.DefaultStallPeriod, "")
	var loops int
	checkSeeds := seedFlags(fs, &o.session, &loops)
	fs.BoolVar(&o.headless, "headless", false, "")
	fs.BoolVar(&o.noSummary, "no-summary", false, "")
	keys := fs.String("keys", "", "")
	showVersion := fs.Bool("version", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, flag.ErrHelp
		}
		return o, usagef("%s", flagError(err))
	}
	if *showVersion {
		return o, errVersion
	}
	if fs.NArg() > 0 {
		return o, usagef("unexpected argument %q", fs.Arg(0))
	}
	seen := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { seen[f.Name] = true })
	c := &o.session
	switch {
	case seen["workers"] && (c.Workers < 0 || c.Workers > session.MaxWorkers):
		return o, usagef("--workers %d: must be 0..%d", c.Workers, session.MaxWorkers)
	case o.duration < 0:
		return o, usagef("--duration %v: must be >= 0 (0 runs until you quit)", o.duration)
	case c.Interval < time.Millisecond:
		return o, usagef("--interval %v: must be at least 1ms", c.Interval)
	case seen["gomaxprocs"] && (c.GOMAXPROCS < 1 || c.GOMAXPROCS > runtime.NumCPU()):
		return o, usagef("--gomaxprocs %d: must be 1..%d (NumCPU)", c.GOMAXPROCS, runtime.NumCPU())
	case c.Interval > time.Minute:
		return o, usagef("--interval %v: must be at most 1m", c.Interval)
	case c.Resolution < 100*time.Microsecond || c.Resolution > time.Second:
		return o, usagef("--resolution %v: must be 100us..1s", c.Resolution)
	case c.Window < c.Interval:
		return o, usagef("--window %v is shorter than --interval %v", c.Window, c.Interval)
	case !(c.Scale > 0 && c.Scale <= 1000):
		return o, usagef("--scale %v: must be > 0 and <= 1000", c.Scale)
	case c.Scenarios.StallDuration < time.Millisecond || c.Scenarios.StallPeriod < time.Millisecond:
		return o, usagef("--stall %v, --stall-every %v: each must be at least 1ms", c.Scenarios.StallDuration, c.Scenarios.StallPeriod)
	case c.Scenarios.StallDuration > c.Scenarios.StallPeriod:
		return o, usagef("--stall %v: longer than --stall-every %v", c.Scenarios.StallDuration, c.Scenarios.StallPeriod)
	}
	if _, err := scenarios.New(c.Scenario, scenarios.Config{}); err != nil {
		return o, usagef("--scenario %q: unknown (have: %s)", c.Scenario, strings.Join(scenarios.Names(), ", "))
	}
	if err := checkSeeds(seen); err != nil {
		return o, err
	}
	steps, err := parseKeys(*keys)
	if err != nil {
		return o, usagef("--keys: %v", err)
	}
	o.keys = steps
	return o, nil
}

var errVersion = errors.New("version")

// flagError rewrites the flag package's messages into one line that names
// the flag.
func flagError(err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "invalid boolean value ") {
		// invalid boolean value "maybe" for -headless: parse error
		msg = "invalid value " + strings.TrimPrefix(msg, "invalid boolean value ")
	}
	if strings.HasPrefix(msg, "invalid value ") {
		// invalid value "abc" for flag -workers: parse error; booleans
		// say "for -headless"
		sep := " for flag -"
		if !strings.Contains(msg, sep) {
			sep = " for -"
		}
		if i := strings.Index(msg, sep); i > 0 {
			name := msg[i+len(sep):]
			if j := strings.Index(name, ":"); j > 0 {
				return fmt.Sprintf("--%s %s: %s", name[:j], msg[len("invalid value "):i], strings.TrimSpace(name[j+1:]))
			}
		}
	}
	if strings.HasPrefix(msg, "flag provided but not defined: -") {
		return "unknown flag --" + strings.TrimPrefix(msg, "flag provided but not defined: -")
	}
	return msg
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
	if len(args) > 0 && args[0] == "scenarios" {
		if len(args) > 1 {
			fmt.Fprintf(stderr, "offtop scenarios: unexpected argument %q\n", args[1])
			return exitUsage
		}
		for _, n := range scenarios.Names() {
			fmt.Fprintf(stdout, "%-10s %s\n", n, scenarios.Summary(n))
		}
		return exitOK
	}
	o, err := parse(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, usageText)
		return exitOK
	case errors.Is(err, errVersion):
		fmt.Fprintln(stdout, "offtop", version)
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "offtop: %v\n%s\n", err, shortUsage)
		return exitUsage
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
