package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/ui"
)

// TestSeedFlagsRefuseBadValues: every bad value of issue 15's flags, on
// offtop and on offtop sweep, is one line naming the flag, and exit 2.
func TestSeedFlagsRefuseBadValues(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--loops", "0"}, "--loops: out of range 1..8: 0"},
		{[]string{"--loops", "9"}, "--loops: out of range 1..8: 9"},
		{[]string{"--loops", "two"}, "--loops"},
		{[]string{"--per-task=maybe"}, "--per-task"},
		{[]string{"--no-load=2"}, "--no-load"},
		{[]string{"--split", "splice"}, "--split"},
		{[]string{"--jobs", "0"}, "--jobs: out of range 1..256: 0"},
		{[]string{"--jobs", "257"}, "--jobs: out of range 1..256: 257"},
		{[]string{"--payload", "json"}, "--payload"},
		{[]string{"--listen", "17080"}, "--listen"},
		{[]string{"--listen", "127.0.0.1:70000"}, "--listen"},
		{[]string{"--listen", "127.0.0.1:http"}, "--listen"},
		{[]string{"sweep", "--loops", "0,1"}, "--loops"},
		{[]string{"sweep", "--loops", "1,1"}, "--loops"},
		{[]string{"sweep", "--loops", ""}, "--loops"},
		{[]string{"sweep", "--split", "x"}, "--split"},
		{[]string{"sweep", "--scenario", "count", "--loops", "1,2"}, "--loops"},
		{[]string{"sweep", "--jobs", "-3"}, "--jobs"},
		{[]string{"sweep", "--payload", "graph"}, "--payload"},
		{[]string{"sweep", "--per-task=x"}, "--per-task"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"--headless"}, c.args...)
		if c.args[0] == "sweep" {
			args = c.args
		}
		code := run(args, &stdout, &stderr)
		first := firstLine(stderr.String())
		if code != exitUsage || !strings.Contains(first, c.want) || strings.Contains(stderr.String(), "goroutine ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line naming %s", c.args, code, stderr.String(), c.want)
		}
	}
}

// TestSeedFlagsReachTheConfig: good values land in the session config; a
// --listen without a host listens on loopback.
func TestSeedFlagsReachTheConfig(t *testing.T) {
	o, err := parse([]string{"--loops", "2", "--per-task", "--split", "chunkify", "--jobs", "64",
		"--payload", "objects", "--listen", ":17080", "--no-load"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := o.session
	sc := c.Scenarios
	if sc.ServerLoops != 2 || !c.PerTask || sc.CountSplit != scenarios.SplitChunkify || sc.CountJobs != 64 ||
		sc.BreakevenPayload != scenarios.PayloadObjects || sc.Listen != "127.0.0.1:17080" || !c.NoLoad {
		t.Errorf("config %+v", c)
	}
}

// TestSeedKeysListedEverywhere: each new key is in --help, works in a
// --keys script, and maps to an Action.
func TestSeedKeysListedEverywhere(t *testing.T) {
	for _, k := range []string{"u", "l", "L", "p", "o"} {
		if !strings.Contains(usageText, " "+k+" ") {
			t.Errorf("--help keys line lacks %q", k)
		}
		if _, err := parseKeys("1s:" + k); err != nil {
			t.Errorf("--keys 1s:%s: %v", k, err)
		}
		if _, _, ok := ui.ActionFor(k); !ok {
			t.Errorf("key %q maps to no Action", k)
		}
	}
	for _, f := range []string{"--loops", "--per-task", "--split", "--jobs", "--payload", "--listen", "--no-load"} {
		if !strings.Contains(usageText, f) {
			t.Errorf("--help lacks %s", f)
		}
	}
	for _, f := range []string{"--loops", "--per-task"} {
		if !strings.Contains(sweepUsage, f) {
			t.Errorf("sweep --help lacks %s", f)
		}
	}
}
