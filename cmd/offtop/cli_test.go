package main

import (
	"errors"
	"flag"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sweep"
)

// FuzzParseArgs: no command line makes parse panic. It either fails with
// one line (a usage error, never a raw flag-package message), asks for
// help or the version, or returns options inside every documented range.
// The args are the fuzzed string split at NUL bytes.
// go test -fuzz FuzzParseArgs ./cmd/offtop
func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{
		"", "--workers\x00-1", "--workers=257", "--workers\x00abc", "--interval\x000",
		"--interval=-1s", "--interval\x001ns", "--resolution\x000", "--duration\x00abc",
		"--scenario\x00nope", "sweep", "--help", "--version", "--headless\x00--keys\x002s:4 4s:q",
		"--stall\x002s\x00--stall-every\x001s", "--scale\x00NaN", "--window\x001ms", "-gomaxprocs=1",
		"--workers\x008\x00--scenario\x00count\x00--interval\x001s\x00--window\x002s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var args []string
		if s != "" {
			args = strings.Split(s, "\x00")
		}
		o, err := parse(args, io.Discard)
		var ue *usageError
		switch {
		case errors.Is(err, flag.ErrHelp), errors.Is(err, errVersion):
			return
		case errors.As(err, &ue):
			if msg := ue.Error(); msg == "" || strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("%q: usage error %q, want one non-empty line", args, msg)
			}
			// Every typed value is quoted cut (quote): the line stays short
			// whatever was typed, the reason whole.
			if n := len(ue.Error()); n > 600 {
				t.Fatalf("%q: usage error of %d bytes: a value not cut", args, n)
			}
			return
		case err != nil:
			t.Fatalf("%q: error %v (%T) is not a usage error", args, err, err)
		}
		c := o.session
		switch {
		case c.Workers < -1 || c.Workers > session.MaxWorkers:
			t.Fatalf("%q: workers %d accepted", args, c.Workers)
		case o.duration < 0:
			t.Fatalf("%q: duration %v accepted", args, o.duration)
		case c.Interval < time.Millisecond || c.Interval > time.Minute:
			t.Fatalf("%q: interval %v accepted", args, c.Interval)
		case c.Resolution < 100*time.Microsecond || c.Resolution > time.Second:
			t.Fatalf("%q: resolution %v accepted", args, c.Resolution)
		case c.Window < c.Interval:
			t.Fatalf("%q: window %v < interval %v accepted", args, c.Window, c.Interval)
		case c.Interval < c.Resolution:
			t.Fatalf("%q: interval %v < resolution %v accepted", args, c.Interval, c.Resolution)
		case c.Window < minWindowProbes*c.Resolution:
			t.Fatalf("%q: window %v < %d x resolution %v accepted", args, c.Window, minWindowProbes, c.Resolution)
		case !(c.Scale > 0 && c.Scale <= 1000):
			t.Fatalf("%q: scale %v accepted", args, c.Scale)
		case c.GOMAXPROCS < 0 || c.GOMAXPROCS > runtime.NumCPU():
			t.Fatalf("%q: gomaxprocs %d accepted", args, c.GOMAXPROCS)
		case c.Scenarios.StallDuration < time.Millisecond || c.Scenarios.StallDuration > c.Scenarios.StallPeriod:
			t.Fatalf("%q: stall %v every %v accepted", args, c.Scenarios.StallDuration, c.Scenarios.StallPeriod)
		case !slices.Contains(scenarios.Names(), c.Scenario):
			t.Fatalf("%q: scenario %q accepted", args, c.Scenario)
		}
	})
}

// TestIntFlagsAreDecimal: offtop's int flags read decimal, as sweep's
// lists do (decimal.Int): 010 is 10, not Go's octal 8, and spaces around
// are trimmed in both.
func TestIntFlagsAreDecimal(t *testing.T) {
	o, err := parse([]string{"--workers", "010", "--scenario", "server", "--loops", "02"}, io.Discard)
	if err != nil || o.session.Workers != 10 || o.session.Scenarios.ServerLoops != 2 {
		t.Fatalf("--workers 010 --loops 02: workers %d, loops %d, %v", o.session.Workers, o.session.Scenarios.ServerLoops, err)
	}
	o, err = parse([]string{"--workers", " 3"}, io.Discard)
	ws, serr := sweep.ParseWorkers(" 3")
	if err != nil || serr != nil || o.session.Workers != 3 || ws[0] != 3 {
		t.Errorf(`offtop --workers " 3": %d, %v; sweep: %v, %v`, o.session.Workers, err, ws, serr)
	}
}

// TestBadInputHasTheUsageLine: offtop's, sweep's, attach's and
// scenarios' bad input is the reason on one line and the command's short
// usage under it.
func TestBadInputHasTheUsageLine(t *testing.T) {
	for _, c := range []struct {
		args  []string
		usage string
	}{
		{[]string{"--workers", "x"}, shortUsage},
		{[]string{"scenarios", "extra"}, shortUsage},
		{[]string{"sweep", "--workers", "x"}, sweepShortUsage},
		{[]string{"attach"}, attachShortUsage},
		{[]string{"attach", "127.0.0.1"}, attachShortUsage},
		{[]string{"attach", "127.0.0.1:99999"}, attachShortUsage},
		{[]string{"attach", "127.0.0.1:7070", "--token="}, attachShortUsage},
		{[]string{"attach", "127.0.0.1:7070", "--keys", "1s:tab"}, attachShortUsage},
	} {
		var stdout, stderr strings.Builder
		code := run(c.args, &stdout, &stderr)
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if code != exitUsage || len(lines) != 2 || !strings.HasPrefix(lines[0], "offtop") || lines[1] != c.usage {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit 2, the reason, then %q", c.args, code, stderr.String(), c.usage)
		}
	}
}

// TestDurationReason tells a duration too long for time.Duration from
// text that is no duration (time.ParseDuration says "invalid duration"
// for both).
func TestDurationReason(t *testing.T) {
	for v, overflow := range map[string]bool{
		"99999999999h": true, "-99999999999h": true, "9223372037s": true, "2562048h": true,
		"1h99999999999m": true, ".5h9999999999999999999ns": true,
		"": false, "1": false, "abc": false, "1.5.5s": false, "1x": false, "h": false, "--1s": false, "1e3s": false,
	} {
		if _, err := time.ParseDuration(v); err == nil {
			t.Fatalf("%q parses: not a case", v)
		}
		got := durationReason(v)
		if strings.HasPrefix(got, "out of range") != overflow {
			t.Errorf("durationReason(%q) = %q, overflow %v", v, got, overflow)
		}
	}
}

// TestFlagBoundsAreTheSessions: --scale, --workers, --interval,
// --resolution and --window are refused exactly where session's checks
// refuse the field, each with one line naming the flag.
func TestFlagBoundsAreTheSessions(t *testing.T) {
	for _, c := range []struct {
		args    []string
		refused error
	}{
		{[]string{"--scale", "1000"}, session.CheckScale(1000)},
		{[]string{"--scale", "1000.5"}, session.CheckScale(1000.5)},
		{[]string{"--scale", "1e-9"}, session.CheckScale(1e-9)},
		{[]string{"--workers", "256"}, session.CheckWorkers(256)},
		{[]string{"--workers", "257"}, session.CheckWorkers(257)},
		{[]string{"--interval", "1s", "--window", "999ms"}, session.CheckSampling(time.Second, session.DefaultResolution, 999*time.Millisecond)},
		{[]string{"--interval", "1s", "--window", "1s"}, session.CheckSampling(time.Second, session.DefaultResolution, time.Second)},
		{[]string{"--resolution", "100us", "--interval", "999us"}, session.CheckSampling(999*time.Microsecond, 100*time.Microsecond, session.DefaultWindow)},
		{[]string{"--resolution", "100us", "--interval", "1ms"}, session.CheckSampling(time.Millisecond, 100*time.Microsecond, session.DefaultWindow)},
		{[]string{"--interval", "1ms", "--resolution", "99us"}, session.CheckSampling(time.Millisecond, 99*time.Microsecond, session.DefaultWindow)},
		{[]string{"--interval", "1ms", "--resolution", "100us"}, session.CheckSampling(time.Millisecond, 100*time.Microsecond, session.DefaultWindow)},
	} {
		_, err := parse(c.args, io.Discard)
		if (err != nil) != (c.refused != nil) {
			t.Errorf("%q: parse %v, session %v", c.args, err, c.refused)
			continue
		}
		if err != nil && !strings.HasPrefix(err.Error(), c.args[len(c.args)-2]+": ") {
			t.Errorf("%q: %q does not name %s", c.args, err, c.args[len(c.args)-2])
		}
	}
}
