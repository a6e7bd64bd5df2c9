package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestAttachLoadRefusals: a --load that cannot run is one line naming
// the cause (the usage hint under a flag's), exit 2, and the program's
// pool untouched.
func TestAttachLoadRefusals(t *testing.T) {
	bin := buildBinary(t)
	addr, _ := startService(t, "127.0.0.1:0", "--load", "0")
	for _, c := range []struct{ spec, want string }{
		{"ping=20/s", `attach: --load: load spec: target 1 "ping=20/s": the path must start with "/"`},
		{"/ping=20", `attach: --load: load spec: target 1 "/ping=20": rate "20": want a whole number per second, e.g. 20/s`},
		{"/ping=0/s", `attach: --load: load spec: target 1 "/ping=0/s": rate 0/s: want 1..1000`},
		{"/ping=1001/s", `attach: --load: load spec: target 1 "/ping=1001/s": rate 1001/s: over the maximum 1000/s`},
		{"/ping=600/s,/pool=600/s", "attach: --load: load spec: the rates add up to more than 1000/s (the most one load sends)"},
		{"", "attach: --load: load spec: empty (want PATH=RATE/s[,PATH=RATE/s...], e.g. /ping=20/s)"},
		{"/ping=20/s,/nope=5/s", "attach: --load: load target: http://" + addr + "/nope answers 404 Not Found (no such endpoint for a GET)"},
		{"/fib=5/s", "attach: --load: load target: http://" + addr + "/fib answers 400 Bad Request (the service refuses the request as written: check its path and query)"},
		{"/ping=20/s --route /nope", `attach: --route: "/nope" is neither a target of --load (/ping=20/s) nor a route the program has served (`},
	} {
		t.Run(c.spec, func(t *testing.T) {
			spec, route, _ := strings.Cut(c.spec, " --route ")
			args := []string{"attach", addr, "--headless", "--duration", "2s", "--load", spec}
			if route != "" {
				args = append(args, "--route", route)
			}
			code, lines, stdout := runRefused(bin, args...)
			if code != exitUsage || !strings.HasPrefix(lines[0], "offtop: "+c.want) || len(lines) > 2 || stdout > 0 {
				t.Fatalf("exit %d, stderr %q, stdout %d bytes: want exit 2, one line %q (and the usage hint), no output", code, lines, stdout, c.want)
			}
		})
	}
	if w := poolWorkers(t, addr); w != 2 {
		t.Fatalf("a refused attach changed the pool: %d workers, want 2", w)
	}
}

// TestAttachLoadHeadless: attached to the example under --load, each
// line's load_client has the spec's targets in order, matched to the
// middleware's routes, with answers counted; every key it has is named
// in docs/json-lines.md's load_client row.
func TestAttachLoadHeadless(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	addr, _ := startService(t, "127.0.0.1:0", "--load", "0")
	cmd := exec.Command(buildBinary(t), "attach", addr, "--headless", "--duration", "4s", "--load", "/ping=20/s,/fib?n=20=10/s")
	var last map[string]any
	headlessLines(t, cmd, func(line string, at time.Duration, m map[string]any) {
		if m["load_client"] == nil {
			t.Fatalf("a line without load_client: %s", line)
		}
		last = m
	})
	lc := last["load_client"].(map[string]any)
	if lc["spec"] != "/ping=20/s,/fib?n=20=10/s" {
		t.Errorf("spec %v", lc["spec"])
	}
	ts := lc["targets"].([]any)
	if len(ts) != 2 {
		t.Fatalf("targets %v", ts)
	}
	for i, want := range [][2]string{{"/ping", "/ping"}, {"/fib?n=20", "/fib"}} {
		tg := ts[i].(map[string]any)
		st := tg["status"].(map[string]any)
		if tg["target"] != want[0] || tg["route"] != want[1] || st["2xx"].(float64) < 5 || tg["sent"].(float64) < 5 {
			t.Errorf("target %d: %v, want %s on route %s with 5 answers or more", i, tg, want[0], want[1])
		}
	}
	doc, err := os.ReadFile("../../docs/json-lines.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `load_client` \\|.*$").FindString(string(doc))
	keys := []string{}
	for k := range lc {
		keys = append(keys, k)
	}
	for k := range ts[0].(map[string]any) {
		keys = append(keys, k)
	}
	for _, k := range keys {
		if !strings.Contains(row, "`"+k+"`") {
			t.Errorf("docs/json-lines.md's load_client row does not name %q", k)
		}
	}
	if b, _ := json.Marshal(lc); len(row) == 0 {
		t.Fatalf("no load_client row in docs/json-lines.md; the line has %s", b)
	}
}
