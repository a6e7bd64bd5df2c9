package main

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestCountFlagsHaveRanges: every flag of offtop and offtop sweep that
// takes a whole number (or a list of them) states its range in the usage
// and refuses a value outside it, however far outside (past int too),
// with exit 2 and one line naming the flag and the range, before anything
// runs: --load 999999999999 once started a sweep that never ended.
func TestCountFlagsHaveRanges(t *testing.T) {
	long := strings.Repeat("9", 400)
	cpus := runtime.NumCPU()
	for _, c := range []struct {
		args []string
		want string // in the one line
	}{
		{[]string{"--workers", "257"}, "--workers: out of range 0..256"},
		{[]string{"--workers", "-1"}, "--workers: out of range 0..256"},
		{[]string{"--workers", long}, "--workers: out of range 0..256"},
		{[]string{"--gomaxprocs", "0"}, fmt.Sprintf("--gomaxprocs: out of range 1..%d", cpus)},
		{[]string{"--gomaxprocs", long}, fmt.Sprintf("--gomaxprocs: out of range 1..%d", cpus)},
		{[]string{"--loops", "0"}, "--loops: out of range 1..8"},
		{[]string{"--loops", "9"}, "--loops: out of range 1..8"},
		{[]string{"--loops", long}, "--loops: out of range 1..8"},
		{[]string{"--scenario", "count", "--jobs", "0"}, "--jobs: out of range 1..256"},
		{[]string{"--scenario", "count", "--jobs", "257"}, "--jobs: out of range 1..256"},
		{[]string{"--scenario", "count", "--jobs", long}, "--jobs: out of range 1..256"},
		{[]string{"--scale", "0"}, "--scale: out of range (0, 1000]"},
		{[]string{"--scale", "1001"}, "--scale: out of range (0, 1000]"},
		{[]string{"sweep", "--load", "101"}, "--load: out of range -100..100"},
		{[]string{"sweep", "--load", "-101"}, "--load: out of range -100..100"},
		{[]string{"sweep", "--scenario", "count", "--load", "999999999999"}, "--load: out of range -100..100"},
		{[]string{"sweep", "--load", "-9223372036854775808"}, "--load: out of range -100..100"},
		{[]string{"sweep", "--load", long}, "--load: out of range -100..100"},
		{[]string{"sweep", "--repeat", "0"}, "--repeat: outside 1..100"},
		{[]string{"sweep", "--repeat", "101"}, "--repeat: outside 1..100"},
		{[]string{"sweep", "--repeat", long}, "--repeat: outside 1..100"},
		{[]string{"sweep", "--workers", "0,257"}, "--workers: out of range 0..256"},
		{[]string{"sweep", "--workers", "0," + long}, "--workers: out of range 0..256"},
		{[]string{"sweep", "--loops", "1,9"}, "--loops: out of range 1..8"},
		{[]string{"sweep", "--loops", long}, "--loops: out of range 1..8"},
		{[]string{"sweep", "--scenario", "count", "--jobs", "257"}, "--jobs: out of range 1..256"},
		{[]string{"sweep", "--scenario", "count", "--jobs", long}, "--jobs: out of range 1..256"},
		{[]string{"sweep", "--scale", "1001"}, "--scale: out of range (0, 1000]"},
	} {
		if c.args[0] == "sweep" {
			if _, _, err := parseSweep(c.args[1:]); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("parseSweep(%q): %v, want %q", c.args[1:], err, c.want)
				continue
			}
		} else if _, err := parse(c.args, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parse(%q): %v, want %q", c.args, err, c.want)
			continue
		}
		var stdout, stderr strings.Builder
		code := run(c.args, &stdout, &stderr)
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if code != exitUsage || len(lines) != 2 || !strings.Contains(lines[0], c.want) || stdout.Len() > 0 {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit 2 and one line with %q, then the usage", c.args, code, stderr.String(), c.want)
		}
	}
	// The usage states each range on the flag's own line(s).
	for _, c := range []struct{ usage, flag, rng string }{
		{usageText, "--workers N", "0..256"},
		{usageText, "--gomaxprocs N", "1..NumCPU"},
		{usageText, "--loops N", "1..8"},
		{usageText, "--jobs N", "1..256"},
		{usageText, "--scale F", "up to 1000"},
		{sweepUsage, "--workers LIST", "0..256"},
		{sweepUsage, "--repeat K", "1..100"},
		{sweepUsage, "--load N", "-100..100"},
		{sweepUsage, "--loops LIST", "1..8"},
		{sweepUsage, "--scale F", "up to 1000"},
	} {
		i := strings.Index(c.usage, c.flag)
		if i < 0 {
			t.Errorf("usage lacks %s", c.flag)
			continue
		}
		text := c.usage[i:]
		if j := strings.Index(text[len(c.flag):], "\n  --"); j >= 0 { // up to the next flag
			text = text[:len(c.flag)+j]
		}
		if !strings.Contains(text, c.rng) {
			t.Errorf("usage of %s does not state its range %s:\n%s", c.flag, c.rng, text)
		}
	}
}
