package main

import (
	"io"
	"strings"
	"testing"
)

// TestDurationFlagRanges: every duration flag of the dashboard, attach
// and sweep outside its range is refused at the parse, before anything
// runs, on one line naming the flag and its range; time.Duration's own
// limit (9223372036854775807ns) among them. Each range is in the usage.
func TestDurationFlagRanges(t *testing.T) {
	dash := func(args ...string) error { _, err := parse(args, io.Discard); return err }
	sw := func(args ...string) error {
		_, _, err := parseSweep(append([]string{"--scenario", "count", "--workers", "1", "--repeat", "1"}, args...))
		return err
	}
	att := func(args ...string) error {
		_, _, err := parseAttach(append([]string{"127.0.0.1:1"}, args...))
		return err
	}
	for _, tc := range []struct {
		parse func(...string) error
		args  []string
		want  string // "" accepted
	}{
		{sw, []string{"--duration", "9223372036854775807ns"}, "--duration: out of range 1s..24h: "},
		{sw, []string{"--duration", "24h1ns"}, "--duration: out of range 1s..24h: "},
		{sw, []string{"--duration", "999999999999h"}, `--duration: out of range 1s..24h: "999999999999h"`},
		{sw, []string{"--duration", "999ms"}, "--duration: out of range 1s..24h: "},
		{sw, []string{"--duration", "24h"}, ""},
		{dash, []string{"--duration", "9223372036854775807ns"}, "--duration: out of range 0..8760h: "},
		{dash, []string{"--duration", "-1s"}, "--duration: out of range 0..8760h: "},
		{dash, []string{"--duration", "999999999999h"}, `--duration: out of range 0..8760h: "999999999999h"`},
		{dash, []string{"--duration", "8760h"}, ""},
		{dash, []string{"--interval", "9223372036854775807ns"}, "--interval: out of range 1ms..1m: "},
		{dash, []string{"--interval", "999us"}, "--interval: out of range 1ms..1m: "},
		{dash, []string{"--resolution", "9223372036854775807ns"}, "--resolution: out of range 100us..1s: "},
		{dash, []string{"--resolution", "99us"}, "--resolution: out of range 100us..1s: "},
		{dash, []string{"--window", "9223372036854775807ns"}, "--window: out of range --interval..24h: "},
		{dash, []string{"--window", "24h"}, ""},
		{dash, []string{"--window", "-1s"}, "--window: out of range --interval..24h: "},
		{dash, []string{"--scenario", "stall", "--stall", "9223372036854775807ns", "--stall-every", "9223372036854775807ns"}, "--stall: out of range 1ms..1m: "},
		{dash, []string{"--scenario", "stall", "--stall-every", "9223372036854775807ns"}, "--stall-every: out of range 1ms..1h: "},
		{dash, []string{"--scenario", "stall", "--stall", "1m", "--stall-every", "1h"}, ""},
		{dash, []string{"--keys", "2562047h:q"}, "--keys: step 1: offset out of range 0..8760h: "},
		{att, []string{"--duration", "9223372036854775807ns"}, "attach: --duration: out of range 0..8760h: "},
		{att, []string{"--interval", "9223372036854775807ns"}, "attach: --interval: out of range 1ms..1m: "},
	} {
		err := tc.parse(tc.args...)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v, want accepted", tc.args, err)
		case tc.want == "":
		case err == nil:
			t.Errorf("%q: accepted, want %q", tc.args, tc.want)
		case !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("%q: %q, want one line starting %q", tc.args, err, tc.want)
		}
		if _, ok := err.(*usageError); err != nil && !ok {
			t.Errorf("%q: %T, want a usage error (exit 2)", tc.args, err)
		}
	}
	for _, u := range []struct{ usage, flag, r string }{
		{sweepUsage, "--duration D", sweepRange.text},
		{usageText, "--duration D", runRange.text}, {usageText, "--interval D", intervalRange.text},
		{usageText, "--resolution D", resolutionRange.text}, {usageText, "--window D", windowRange.text},
		{usageText, "--stall D", stallRange.text}, {usageText, "--stall-every D", stallEveryRange.text},
		{usageText, "OFFSET is a Go\n  duration from the start,", runRange.text},
		{attachUsage, "--duration D", runRange.text}, {attachUsage, "--interval D", intervalRange.text},
	} {
		_, line, _ := strings.Cut(u.usage, u.flag)
		if line, _, _ = strings.Cut(line, "\n"); !strings.Contains(line, u.r) {
			t.Errorf("the usage of %s does not state its range %s: %q", u.flag, u.r, line)
		}
	}
}
