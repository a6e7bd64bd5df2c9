package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/sweep"
	"github.com/offtop/offtop/internal/testkit"
)

// TestSweepAttachRefusals: a sweep --attach that cannot run is one line
// naming the cause (the usage hint under a flag's), exit 2, nothing on
// stdout, and the program's pool untouched.
func TestSweepAttachRefusals(t *testing.T) {
	bin := buildBinary(t)
	addr, _ := startService(t, "127.0.0.1:0", "--load", "0")
	notAgent := httptest.NewServer(http.NotFoundHandler())
	defer notAgent.Close()
	// A port nothing listens on: listened on, then closed.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	none := ln.Addr().String()
	ln.Close()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unparsed", []string{"--attach", addr, "--load", "ping=20/s"}, `sweep: --load: load spec: target 1 "ping=20/s": the path must start with "/"`},
		{"rate 0", []string{"--attach", addr, "--load", "/ping=0/s"}, `sweep: --load: load spec: target 1 "/ping=0/s": rate 0/s: want 1..1000`},
		{"over max", []string{"--attach", addr, "--load", "/ping=1001/s"}, `sweep: --load: load spec: target 1 "/ping=1001/s": rate 1001/s: over the maximum 1000/s`},
		{"404", []string{"--attach", addr, "--load", "/ping=20/s,/nope=5/s"}, "sweep: --load: load target: http://" + addr + "/nope answers 404 Not Found (no such endpoint for a GET)"},
		{"refused", []string{"--attach", none, "--load", "/ping=20/s"}, "sweep: --attach: unreachable: nothing listens on " + none},
		{"no agent", []string{"--attach", strings.TrimPrefix(notAgent.URL, "http://"), "--load", "/ping=20/s"}, "sweep: --attach: not an offtop agent: "},
		{"no load", []string{"--attach", addr}, "sweep: --attach: needs --load SPEC"},
		{"token", []string{"--attach", addr, "--load", "/ping=20/s", "--token", "a\r\nb"}, "sweep: --token: not a token: at most 256 bytes"},
		{"route", []string{"--attach", addr, "--load", "/ping=20/s", "--route", "/fib"}, `sweep: --route: "/fib" is not a target of --load (/ping=20/s)`},
		{"scenario", []string{"--attach", addr, "--load", "/ping=20/s", "--scenario", "count"}, "sweep: --scenario: not with --attach"},
		{"route alone", []string{"--route", "/ping"}, "sweep: --route: only with --attach ADDR"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, lines, stdout := runRefused(bin, append([]string{"sweep", "--workers", "1,2", "--duration", "1s"}, c.args...)...)
			first := strings.TrimPrefix(strings.TrimPrefix(lines[0], "offtop: "), "offtop ")
			if code != exitUsage || !strings.HasPrefix(first, c.want) || len(lines) > 2 || stdout > 0 {
				t.Fatalf("exit %d, stderr %q, stdout %d bytes: want exit 2, one line %q (and the usage hint), no output", code, lines, stdout, c.want)
			}
		})
	}
	if w := poolWorkers(t, addr); w != 2 {
		t.Fatalf("a refused sweep changed the pool: %d workers, want 2", w)
	}
}

// runRefused runs bin with args: its exit code (-1: none), its stderr's
// lines and the bytes it wrote to stdout.
func runRefused(bin string, args ...string) (code int, stderr []string, stdout int) {
	cmd := exec.Command(bin, args...)
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	code = -1
	if ee, ok := cmd.Run().(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return code, strings.Split(strings.TrimSpace(errs.String()), "\n"), out.Len()
}

// sweepJSON runs `bin sweep ARGS --json`, which must exit 0, and reads
// its result; out is the JSON as written.
func sweepJSON(t *testing.T, bin string, args ...string) (res sweep.Result, out []byte) {
	t.Helper()
	cmd := exec.Command(bin, append(append([]string{"sweep"}, args...), "--json")...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return res, out
}

// TestSweepAttachJSON: a sweep of the example under --load has a row per
// size, each from its own hold (the agent's row of that size, the
// client's p99 of the route target), picks a size, and sets the pool
// back to its size before.
func TestSweepAttachJSON(t *testing.T) {
	bin := buildBinary(t)
	addr, _ := startService(t, "127.0.0.1:0", "--load", "0", "--workers", "3")
	res, out := sweepJSON(t, bin, "--attach", addr, "--load", "/fib?n=22=20/s,/ping=20/s", "--route", "/ping",
		"--workers", "1,2", "--duration", "1s", "--repeat", "1")
	if res.Scenario != "service" || len(res.Rows) != 2 || res.Attach == nil || res.Fit == nil {
		t.Fatalf("result %s: want the service's 2 rows, attach and fit", out)
	}
	a := res.Attach
	if a.Target != "/ping" || a.Route != "/ping" || a.StartWorkers != 3 || !a.Restored {
		t.Errorf("attach %+v: want target and route /ping, started at 3 and set back", a)
	}
	for i, r := range res.Rows {
		if r.Workers != i+1 || r.Size.Workers != i+1 || r.Size.Headline != "/ping client" || r.Size.HeldS < 0.5 {
			t.Errorf("row %d: workers %d, size %+v: want %d workers, the /ping headline, held about 1s", i, r.Workers, r.Size, i+1)
		}
		c, s := r.Extra[sweep.KeyClientP99], r.Extra[sweep.KeyServerP99]
		if c == nil || s == nil || r.Size.HeadlineP99MS == nil || *c != *r.Size.HeadlineP99MS || r.ThroughputPerS <= 0 {
			t.Errorf("row %d: client %v server %v headline %v tasks/s %v: want both p99s, the client's as the headline, tasks done", i, c, s, r.Size.HeadlineP99MS, r.ThroughputPerS)
		}
	}
	if w := poolWorkers(t, addr); w != 3 {
		t.Fatalf("after the sweep: %d workers, want 3, the size before", w)
	}
}

// TestSweepAttachJSONPoolIdle: a load that gives the pool nothing (only
// /ping) still holds each size, the requests being the program's work:
// a p99 for /ping, a CPU/wall, and no pool task done.
func TestSweepAttachJSONPoolIdle(t *testing.T) {
	bin := buildBinary(t)
	addr, _ := startService(t, "127.0.0.1:0", "--load", "0", "--workers", "2")
	res, out := sweepJSON(t, bin, "--attach", addr, "--load", "/ping=20/s",
		"--workers", "0,1", "--duration", "1s", "--repeat", "2")
	if len(res.Rows) != 2 {
		t.Fatalf("rows %d, want 2: %s", len(res.Rows), out)
	}
	for _, r := range res.Rows {
		if r.Size.HeadlineP99MS == nil || r.CPUPerWall == nil || r.Size.CPUPerWall == nil || r.ThroughputPerS != 0 {
			t.Errorf("%d workers: /ping p99 %v, CPU/wall %v and %v, tasks/s %v: want a p99, a CPU/wall and 0 tasks/s", r.Workers, r.Size.HeadlineP99MS, r.CPUPerWall, r.Size.CPUPerWall, r.ThroughputPerS)
		}
	}
}

// stoppableService starts the example at 3 workers, idle, and returns its
// address and pid; the test's end sends it SIGCONT, in case it stopped it.
func stoppableService(t *testing.T) (addr string, pid int) {
	t.Helper()
	addr, _ = startService(t, "127.0.0.1:0", "--load", "0", "--workers", "3")
	pid = agentPID(t, addr)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	return addr, pid
}

// exitAfterSIGINT sends cmd SIGINT and returns how long after the signal
// its exit (from done) came, and the exit.
func exitAfterSIGINT(t *testing.T, cmd *exec.Cmd, done <-chan error) (time.Duration, error) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	err := testkit.Recv(t, "the sweep to exit", 15*time.Second, done)
	return time.Since(sent), err
}

// sweepAtOne starts bin's sweep of the program at addr at 1 then 2
// workers, holding each for dur under /ping=20/s, and returns once the
// pool is at 1: the sweep, its stderr so far, and its exit.
func sweepAtOne(t *testing.T, bin, addr, dur string) (*exec.Cmd, *strings.Builder, <-chan error) {
	t.Helper()
	cmd := exec.Command(bin, "sweep", "--attach", addr, "--load", "/ping=20/s", "--workers", "1,2", "--duration", dur, "--repeat", "1")
	stderr := new(strings.Builder)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	testkit.WaitFor(t, "the sweep to resize the pool to 1", 20*time.Second, func() bool { return poolWorkers(t, addr) == 1 })
	return cmd, stderr, done
}

// TestSweepAttachStopsWhileItWaitsForAStoppedProgram: SIGINT while the
// sweep waits for the hold's last requests, the program SIGSTOPped since
// mid-hold, ends the sweep at once, interrupted (exit 130), with the rows
// so far and the pool's restore given up after sweep.RestoreTimeout;
// it waited for the requests' timeout (6 s) and then exited 1, "went
// away", the signal lost. The bound of 4 s leaves 2.5 s over the
// restore's 1.5 s for a busy machine.
func TestSweepAttachStopsWhileItWaitsForAStoppedProgram(t *testing.T) {
	bin := buildBinary(t)
	addr, pid := stoppableService(t)
	// 2 s holds after a warm-up of 400 ms: the first hold ends about
	// 2.5 s after the pool goes to 1, and the stream reads as gone 3 s
	// after the stop (remote.StaleAfter), at about 4 s.
	cmd, stderr, done := sweepAtOne(t, bin, addr, "2s")
	time.Sleep(time.Second)
	syscall.Kill(pid, syscall.SIGSTOP)
	time.Sleep(2 * time.Second) // past the hold's end: the sweep waits for its requests
	took, err := exitAfterSIGINT(t, cmd, done)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || took > 4*time.Second || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("exit %v after %v, want 130 within 4s, interrupted: %s", err, took.Round(time.Millisecond), stderr.String())
	}
}

// TestSweepAttachSecondSignalExitsAtOnce: with the program SIGSTOPped,
// a second SIGINT 0.1 s after the first exits within 1 s (it waits
// restoreAtOnce, 250 ms, for the program's answer); it waited for the
// first signal's restore, 1.5 s, and printed the table meanwhile.
func TestSweepAttachSecondSignalExitsAtOnce(t *testing.T) {
	bin := buildBinary(t)
	addr, pid := stoppableService(t)
	cmd, stderr, done := sweepAtOne(t, bin, addr, "30s")
	syscall.Kill(pid, syscall.SIGSTOP)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(100 * time.Millisecond)
	took, err := exitAfterSIGINT(t, cmd, done)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || took > time.Second || !strings.Contains(stderr.String(), "NOT set back") {
		t.Errorf("exit %v %v after the second SIGINT, want 130 within 1s and the pool NOT set back said: %s", err, took.Round(time.Millisecond), stderr.String())
	}
}

// TestSweepAttachGoneSaysThePool: a program SIGSTOPped as its first size
// begins, with no signal to the sweep, ends it (exit 1: "unreachable", or
// "went away" when the stream goes quiet first) with a line on whether
// its pool was set back; that line was missing.
func TestSweepAttachGoneSaysThePool(t *testing.T) {
	bin := buildBinary(t)
	addr, pid := stoppableService(t)
	_, stderr, done := sweepAtOne(t, bin, addr, "2s")
	syscall.Kill(pid, syscall.SIGSTOP)
	err := testkit.Recv(t, "the sweep to end", 30*time.Second, done)
	out := stderr.String()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out, "offtop sweep: pool NOT set back to 3 workers") {
		t.Errorf("exit %v, want 1 and the pool NOT set back said: %s", err, out)
	}
}

// TestSweepAttachRestoresOnSIGINT: a sweep stopped by SIGINT while it
// holds a size sets the program's pool back to its size before, and
// exits 130.
func TestSweepAttachRestoresOnSIGINT(t *testing.T) {
	bin := buildBinary(t)
	addr, _ := startService(t, "127.0.0.1:0", "--load", "0", "--workers", "3")
	cmd, stderr, done := sweepAtOne(t, bin, addr, "30s")
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := testkit.Recv(t, "the sweep to exit", 10*time.Second, done)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130: %s", err, stderr.String())
	}
	if w := poolWorkers(t, addr); w != 3 {
		t.Fatalf("after SIGINT: %d workers, want 3, the size before the sweep (stderr %s)", w, stderr.String())
	}
}
