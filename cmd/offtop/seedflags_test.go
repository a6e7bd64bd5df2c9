package main

import (
	"bytes"
	"flag"
	"net"
	"strings"
	"testing"

	"github.com/offtop/offtop/internal/cliflag"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sweep"
	"github.com/offtop/offtop/internal/ui"
)

// TestSeedFlagsRefuseBadValues: every bad value of the seeds' flags, on
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

// TestSeedFlagsReachTheConfig: good values land in the session config,
// each given with a scenario that takes it; a --listen without a host
// listens on loopback.
func TestSeedFlagsReachTheConfig(t *testing.T) {
	parsed := func(args ...string) session.Config {
		t.Helper()
		o, err := parse(args, nil)
		if err != nil {
			t.Fatal(err)
		}
		return o.session
	}
	c := parsed("--scenario", "server", "--loops", "2", "--per-task", "--listen", ":0", "--no-load")
	if c.Scenarios.ServerLoops != 2 || !c.PerTask || c.Scenarios.Listen != "127.0.0.1:0" || !c.NoLoad {
		t.Errorf("server config %+v", c)
	}
	c = parsed("--scenario", "count", "--split", "chunkify", "--jobs", "64")
	if c.Scenarios.CountSplit != scenarios.SplitChunkify || c.Scenarios.CountJobs != 64 {
		t.Errorf("count config %+v", c)
	}
	c = parsed("--scenario", "breakeven", "--payload", "objects")
	if c.Scenarios.BreakevenPayload != scenarios.PayloadObjects {
		t.Errorf("breakeven config %+v", c)
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

// TestListenRefusesWhatCannotServe: --listen refuses, reason first and
// before any scenario starts, a port in use, an address not on this
// machine, a host not found and (without --allow-remote) an address
// other machines reach, 0.0.0.0 and [::] included; loopback passes.
func TestListenRefusesWhatCannotServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no loopback here:", err)
	}
	defer ln.Close()
	for _, c := range []struct {
		addr   string
		remote bool
		want   string // "" passes
	}{
		{ln.Addr().String(), false, "address already in use"},
		{"0.0.0.0:0", false, "not a loopback address"},
		{"[::]:0", false, "not a loopback address"},
		{"192.0.2.1:0", false, "not a loopback address"},
		{"192.0.2.1:0", true, "address not on this machine"},
		{"nohost.invalid:80", false, "host not found"},
		{"127.0.0.1:0", false, ""},
		{":0", false, ""},
		{"localhost:0", false, ""},
		{"0.0.0.0:0", true, ""},
	} {
		_, err := listenAddr(c.addr, c.remote)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("--listen %s (remote %v): %v", c.addr, c.remote, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("--listen %s (remote %v): %v, want %q", c.addr, c.remote, err, c.want)
		}
	}
}

// TestUsageNamesEveryFlag: each command's --help (offtop, sweep, attach,
// node) names every flag the command takes, so none is accepted without
// being documented.
func TestUsageNamesEveryFlag(t *testing.T) {
	var c sweep.Config
	sw, _, _, _, _ := sweepFlags(&c, new(bool))
	top, _, _, _ := offtopFlags(new(options))
	at, _, _, _, _, _ := attachFlags(new(options))
	nd, _, _ := nodeFlags()
	for _, u := range []struct {
		name, text string
		fs         *cliflag.Set
	}{{"offtop", usageText, top}, {"sweep", sweepUsage, sw}, {"attach", attachUsage, at}, {"node", nodeUsage, nd}} {
		u.fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(u.text, "--"+f.Name) {
				t.Errorf("%s --help lacks --%s", u.name, f.Name)
			}
		})
	}
}
