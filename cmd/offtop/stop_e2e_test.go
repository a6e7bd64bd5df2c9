package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"
)

// TestBadInputKeepsItsReason, over the built binary:
// each case gives one line on stderr that says what is wrong before it
// quotes the value (cut, never the reason), names flags as the help does,
// and exits with the right status.
func TestBadInputKeepsItsReason(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	bin := buildBinary(t)
	long := strings.Repeat("9", 400)
	sizes := make([]string, 300)
	for i := range sizes {
		sizes[i] = "1"
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		full = nil
	} else {
		defer full.Close()
	}
	cases := []struct {
		name   string
		args   []string
		full   bool // stdout on /dev/full
		status int
		want   []string // in the first line, in this order
	}{
		{"400 digits", []string{"--workers", long}, false, 2, []string{"--workers: out of range 0..256: ", `"9999`, "...(400 chars)"}},
		{"400-digit scale", []string{"--scale", long}, false, 2, []string{"--scale: out of range (0, 1000]: ", `"9999`, "...(400 chars)"}},
		{"sweep scale past float64", []string{"sweep", "--scale", "1e999"}, false, 2, []string{`--scale: out of range (0, 1000]: "1e999"`}},
		{"100k scenario", []string{"--scenario", strings.Repeat("x", 100000)}, false, 2, []string{"--scenario: unknown (have: server", `"xxxx`, "...(100000 chars)"}},
		{"300-size sweep", []string{"sweep", "--workers", strings.Join(sizes, ",")}, false, 2, []string{"--workers: a size twice: 1: ", `"1,1,`, "...(599 chars)"}},
		{"sweep size out of range", []string{"sweep", "--workers", "0,1," + long}, false, 2, []string{"--workers: out of range 0..256 (item ", `: "0,1,9`}},
		{"sweep size below 0", []string{"sweep", "--workers", "-1"}, false, 2, []string{`--workers: out of range 0..256: "-1"`}},
		{"sweep empty size", []string{"sweep", "--workers", ","}, false, 2, []string{`--workers: an empty item: ","`}},
		{"sweep hex size", []string{"sweep", "--workers", "1,0x2"}, false, 2, []string{`--workers: not a whole number (item "0x2"): "1,0x2"`}},
		{"listen on all interfaces", []string{"--headless", "--scenario", "server", "--listen", "0.0.0.0:0"}, false, 2, []string{"--listen: not a loopback address", `: "0.0.0.0:0"`}},
		{"listen host not found", []string{"--headless", "--scenario", "server", "--listen", "nohost.invalid:80"}, false, 2, []string{`--listen: host not found: "nohost.invalid:80"`}},
		{"loops for count", []string{"--scenario", "count", "--loops", "3"}, false, 2, []string{`--loops: only server takes it, not "count"`}},
		{"sweep loops for count", []string{"sweep", "--scenario", "count", "--loops", "3"}, false, 2, []string{`--loops: only server takes it, not "count"`}},
		{"payload for count", []string{"--scenario", "count", "--payload", "objects"}, false, 2, []string{`--payload: only breakeven takes it, not "count"`}},
		{"sweep split for server", []string{"sweep", "--scenario", "server", "--split", "even"}, false, 2, []string{`--split: only count takes it, not "server"`}},
		{"jobs for server", []string{"--scenario", "server", "--jobs", "3"}, false, 2, []string{`--jobs: only count takes it, not "server"`}},
		{"listen for count", []string{"--scenario", "count", "--listen", "127.0.0.1:0"}, false, 2, []string{`--listen: only server and io take it, not "count"`}},
		{"stall for server", []string{"--scenario", "server", "--stall", "50ms"}, false, 2, []string{`--stall: only stall takes it, not "server"`}},
		{"no-load for stall", []string{"--scenario", "stall", "--no-load"}, false, 2, []string{`--no-load: only server and io take it, not "stall"`}},
		{"empty split", []string{"--scenario", "count", "--split", ""}, false, 2, []string{`--split: not one of queue, even, slice, chunkify: ""`}},
		{"empty payload", []string{"--scenario", "breakeven", "--payload", ""}, false, 2, []string{`--payload: not bytes or objects: ""`}},
		{"empty keys", []string{"--keys", ""}, false, 2, []string{"--keys: empty"}},
		{"hex workers", []string{"--workers", "0x10"}, false, 2, []string{`--workers: not a whole number: "0x10"`}},
		{"octal-looking workers", []string{"--workers", "0o7"}, false, 2, []string{`--workers: not a whole number: "0o7"`}},
		{"binary loops", []string{"--loops", "0b11"}, false, 2, []string{`--loops: not a whole number: "0b11"`}},
		{"underscored jobs", []string{"--jobs", "1_0"}, false, 2, []string{`--jobs: not a whole number: "1_0"`}},
		{"window below the probe", []string{"--headless", "--interval", "1ms", "--window", "1ms", "--resolution", "1ms"}, false, 2, []string{"--window: shorter than 5 probe periods"}},
		{"interval below the probe", []string{"--headless", "--interval", "1ms", "--window", "1ms"}, false, 2, []string{"--interval: shorter than the probe's --resolution 10ms"}},
		{"attach scenario key", []string{"attach", "127.0.0.1:17171", "--headless", "--duration", "4s", "--keys", "1s:3 2s:tab 3s:l"}, false, 2, []string{"attach: --keys: tab is not available attached (", `: step 2 "2s:tab"`}},
		{"attach no port", []string{"attach", "127.0.0.1"}, false, 2, []string{`attach: ADDR: no port (want host:port, e.g. 127.0.0.1:7070): "127.0.0.1"`}},
		{"attach port out of range", []string{"attach", "127.0.0.1:99999", "--headless"}, false, 2, []string{`attach: ADDR: port out of range 1..65535: "127.0.0.1:99999"`}},
		{"attach no host, no terminal", []string{"attach", "http://"}, false, 2, []string{`attach: ADDR: no host: "http://"`}},
		{"attach bad port, no terminal", []string{"attach", "[::1]:7070x"}, false, 2, []string{`attach: ADDR: port not a number: "[::1]:7070x"`}},
		{"attach host not found, no terminal", []string{"attach", "nohost.invalid:7070"}, false, 2, []string{"attach: unreachable: host not found: nohost.invalid"}},
		{"attach empty token, no terminal", []string{"attach", "127.0.0.1:7070", "--token", ""}, false, 2, []string{"attach: --token: empty"}},
		{"scenarios extra", []string{"scenarios", "extra"}, false, 2, []string{`offtop scenarios: unexpected argument: "extra"`}},
		{"default interval below the probe", []string{"--headless", "--window", "1s", "--resolution", "300ms"}, false, 2, []string{"--interval 250ms (the default) is shorter than the probe's --resolution 300ms", "give --interval 300ms or more"}},
		{"default window below the interval", []string{"--headless", "--interval", "10s"}, false, 2, []string{"--window 5s (the default) is shorter than --interval 10s: give --window 10s or more"}},
		{"duration past a Duration", []string{"--headless", "--duration", "99999999999h"}, false, 2, []string{`--duration: out of range 0..8760h: "99999999999h"`}},
		{"sweep duration past a Duration", []string{"sweep", "--duration", "9223372037s"}, false, 2, []string{`--duration: out of range 1s..24h: "9223372037s"`}},
		{"not a duration", []string{"--headless", "--duration", "1.5.5s"}, false, 2, []string{`--duration: not a duration like 2s or 1500ms: "1.5.5s"`}},
		{"keys offset past a Duration", []string{"--headless", "--keys", "99999999999h:q"}, false, 2, []string{`--keys: step 1: offset out of range 0..8760h: "99999999999h:q"`}},
		{"bool flag", []string{"--headless=maybe"}, false, 2, []string{"--headless: not true or false: ", `"maybe"`}},
		{"sweep bool flag", []string{"sweep", "--json=maybe"}, false, 2, []string{"--json: not true or false: "}},
		{"unknown flag", []string{"-nope"}, false, 2, []string{`unknown flag: "--nope"`}},
		{"help on /dev/full", []string{"--help"}, true, 1, []string{"no space left on device"}},
		{"version on /dev/full", []string{"--version"}, true, 1, []string{"no space left on device"}},
		{"scenarios on /dev/full", []string{"scenarios"}, true, 1, []string{"no space left on device"}},
		{"sweep help on /dev/full", []string{"sweep", "--help"}, true, 1, []string{"no space left on device"}},
		{"headless on /dev/full", []string{"--headless", "--duration", "2s"}, true, 1, []string{"no space left on device"}},
	}
	// Each case is a process that exits at once: several at a time.
	testkit.RunEach(t, len(cases), 8, func(i int) string { return cases[i].name }, func(t *testing.T, i int) {
		c := cases[i]
		if c.full && full == nil {
			t.Skip("no /dev/full here")
		}
		var stderr bytes.Buffer
		cmd := exec.Command(bin, c.args...)
		cmd.Stderr = &stderr
		if c.full {
			cmd.Stdout = full
		}
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != c.status {
			t.Errorf("exit %v, want status %d", err, c.status)
		}
		first := firstLine(stderr.String())
		at := 0
		for _, w := range c.want {
			i := strings.Index(first[at:], w)
			if i < 0 {
				t.Fatalf("first line %q: want %q (after %q)", first, w, first[:at])
			}
			at += i + len(w)
		}
		if c.status == 1 && strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
			t.Errorf("stderr has more than one line:\n%s", stderr.String())
		}
		if len(first) > 400 {
			t.Errorf("first line is %d bytes: the value is not cut", len(first))
		}
	})
}

// stopNotWaiting is the behaviour tier's bound on a stop: long enough for
// a busy laptop under -race, far shorter than the work a stop must not
// wait for (what is left of a 20s stall, minutes of login keys or crash
// chains at scale 1000, a process left stopped forever). The 2s
// is a timing claim, judged on a quiet machine in the shape tier
// (TestShapeStopsWithin2s).
const stopNotWaiting = 8 * time.Second

// TestStopEndsTheRun, over the built binary, headless:
// the end of --duration ends a login or crash run at scale 1000 (whose
// keys and chains take minutes) at once; SIGTERM at 3s into a 20s stall
// exits 143 without waiting for it, the last JSON line's probe max holds
// the stall so far, its counts add up and the stall is counted as cut; a
// sweep stopped before its first row prints the machine line right and
// exits 143; a second signal exits at once.
func TestStopEndsTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("about 15s of real runs")
	}
	bin := buildBinary(t)
	// The runs at once, three at a time: each bound is a stop's, far
	// above what a neighbour's CPU adds.
	runs := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"login scale 1000", func(t *testing.T) { stopAtDuration(t, bin, "login", 2*time.Second+stopNotWaiting) }},
		{"crash scale 1000", func(t *testing.T) { stopAtDuration(t, bin, "crash", 2*time.Second+stopNotWaiting) }},
		{"stall SIGTERM", func(t *testing.T) { stopStallOnTerm(t, bin, stopNotWaiting) }},
		{"sweep SIGTERM before its first row", stopSweepBeforeFirstRow(bin)},
		{"second signal", func(t *testing.T) { stopOnSecondSignal(t, bin, stopNotWaiting) }},
	}
	testkit.RunEach(t, len(runs), 3, func(i int) string { return runs[i].name }, func(t *testing.T, i int) { runs[i].run(t) })
}

// stopSweepBeforeFirstRow: a sweep stopped by SIGTERM in its first run
// prints the machine line and exits 143.
func stopSweepBeforeFirstRow(bin string) func(t *testing.T) {
	return func(t *testing.T) {
		var stdout bytes.Buffer
		var stderr lockedBuffer
		cmd := exec.Command(bin, "sweep", "--scenario", "count", "--duration", "5s")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		testkit.WaitFor(t, "the sweep's first run under way", 0, func() bool { return strings.Contains(stderr.String(), "(run 1/") })
		cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 143 {
			t.Errorf("exit %v, want 143", err)
		}
		// The child's GOMAXPROCS is its own default, not this test's (go test -cpu).
		want := regexp.MustCompile(fmt.Sprintf(`GOMAXPROCS \d+, NumCPU %d,`, runtime.NumCPU()))
		if first := firstLine(stdout.String()); !want.MatchString(first) {
			t.Errorf("first line %q: want the machine line %q", first, want)
		}
	}
}

// stopAtDuration runs scen at scale 1000 for --duration 2s headless and
// fails if it took longer than within or its last line's counts do not
// add up.
func stopAtDuration(t *testing.T, bin, scen string, within time.Duration) {
	t.Helper()
	start := time.Now()
	out, err := exec.Command(bin, "--headless", "--no-summary", "--scenario", scen, "--scale", "1000", "--duration", "2s").Output()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("exit %v", err)
	}
	t.Logf("--duration 2s at scale 1000: exit after %v", took)
	if took > within {
		t.Errorf("--duration 2s took %v, want at most %v", took, within)
	}
	last := lastLine(t, out)
	if last.Submitted != last.Completed+last.Failed+last.TimedOut+last.Running+last.QueueDepth {
		t.Errorf("last line's counts do not add up: %+v", last)
	}
}

// stopStallOnTerm sends SIGTERM once a line says the 20s stall has run
// 2.5s (probe_stalled_ms) and checks the exit (143, within within), the
// last line (the stall so far in the probe max, counts adding up, the
// stall counted as cut) and the summary's word.
func stopStallOnTerm(t *testing.T, bin string, within time.Duration) {
	t.Helper()
	var stdout lockedBuffer
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "--headless", "--scenario", "stall", "--stall", "20s", "--stall-every", "20s")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	seen := waitStalled(t, &stdout, 2500)
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	took := time.Since(sent)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 {
		t.Errorf("exit %v, want 143", err)
	}
	t.Logf("exit %v after SIGTERM", took)
	if took > within {
		t.Errorf("exit %v after SIGTERM, want at most %v", took, within)
	}
	last := lastLine(t, []byte(stdout.String()))
	// The histogram keeps 3 significant digits: 1% is a wide margin.
	if last.Probe.Max == nil || *last.Probe.Max < 0.99*seen {
		t.Errorf("last line's probe max %s ms, want the stall so far (%.0f ms before SIGTERM)", fmtMs(last.Probe.Max), seen)
	}
	if last.Submitted != last.Completed+last.Failed+last.TimedOut+last.Running+last.QueueDepth {
		t.Errorf("last line's counts do not add up: %+v", last)
	}
	if cut, _ := last.Extra["stalls_cut"].(float64); cut != 1 {
		t.Errorf("stalls_cut %v, want 1", last.Extra["stalls_cut"])
	}
	if !strings.Contains(stderr.String(), "cut a Loop stall short after") {
		t.Errorf("the summary does not say the stall was cut:\n%s", stderr.String())
	}
}

// fmtMs is *ms, or "n/a" for nil.
func fmtMs(ms *float64) string {
	if ms == nil {
		return "n/a"
	}
	return fmt.Sprint(*ms)
}

// waitStalled waits for a JSON line on out whose probe_stalled_ms is at
// least ms (the stall has run that long) and returns that figure. When the
// stall begins depends on how fast the binary starts (slow under -race on
// a busy machine).
func waitStalled(t *testing.T, out *lockedBuffer, ms float64) float64 {
	t.Helper()
	stalled := func() float64 {
		var l struct {
			Stalled float64 `json:"probe_stalled_ms"`
		}
		s := out.String()
		end := strings.LastIndexByte(s, '\n')
		if end < 0 {
			return 0
		}
		json.Unmarshal([]byte(s[strings.LastIndexByte(s[:end], '\n')+1:end]), &l)
		return l.Stalled
	}
	return testkit.Poll(t, fmt.Sprintf("a line with the stall %vms in", ms), 0, stalled, func(v float64) bool { return v >= ms })
}

// stopOnSecondSignal sends two SIGTERMs back to back into a 20s stall:
// the second comes while the run stops (or before the first is taken);
// either way the run exits 143 within within and never waits on the stall.
func stopOnSecondSignal(t *testing.T, bin string, within time.Duration) {
	t.Helper()
	var stderr bytes.Buffer
	var stdout lockedBuffer
	cmd := exec.Command(bin, "--headless", "--no-summary", "--scenario", "stall", "--stall", "20s", "--stall-every", "20s")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitStalled(t, &stdout, 1)
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 || time.Since(sent) > within {
		t.Errorf("exit %v after %v, want 143 within %v; stderr %q", err, time.Since(sent), within, stderr.String())
	}
}

// stopLine is what TestStopEndsTheRun reads of a JSON line.
type stopLine struct {
	Submitted  int64          `json:"submitted"`
	Completed  int64          `json:"completed"`
	Failed     int64          `json:"failed"`
	TimedOut   int64          `json:"timed_out"`
	Running    int64          `json:"running"`
	QueueDepth int64          `json:"queue_depth"`
	Extra      map[string]any `json:"extra"`
	Probe      struct {
		Max *float64 `json:"max_ms"`
	} `json:"probe"`
}

func lastLine(t *testing.T, out []byte) stopLine {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var l stopLine
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &l); err != nil {
		t.Fatalf("last line %q: %v", lines[len(lines)-1], err)
	}
	return l
}

// TestSuspendInTmux: kill -TSTP leaves the alternate screen with the
// terminal back in line mode with echo, and stops the process; kill -CONT
// brings the dashboard back; ctrl+z typed in the pane does the same; q
// then exits 0 and the summary says how long it was suspended.
func TestSuspendInTmux(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	bin := buildBinary(t)
	tm := testkit.NewTmux(t, 100, 30, bin+" --scenario stall --workers 1; echo EXIT=$?; sleep 60")
	dashboard := func(s string) bool { return strings.Contains(s, "sizes tried") && strings.Contains(s, "workers 1") }
	tm.WaitScreen("dashboard", 10*time.Second, dashboard)
	tty := tm.Display("#{pane_tty}")
	pane := tm.PanePID()
	pid := testkit.ChildOf(t, pane)
	for _, how := range []string{"kill -TSTP", "ctrl+z"} {
		if how == "ctrl+z" {
			tm.Run("send-keys", "C-z")
		} else {
			tm.Signal(syscall.SIGTSTP)
		}
		testkit.WaitFor(t, how+": stopped, alternate screen off", 5*time.Second, func() bool {
			return procState(pid) == "T" && tm.Display("#{alternate_on}") == "0"
		})
		out, err := exec.Command("stty", "-a", "-F", tty).CombinedOutput()
		if err != nil {
			t.Fatalf("stty: %v\n%s", err, out)
		}
		for _, f := range strings.Fields(string(out)) {
			if f == "-echo" || f == "-icanon" {
				t.Errorf("%s: the terminal has %s:\n%s", how, f, out)
			}
		}
		tm.Signal(syscall.SIGCONT)
		testkit.WaitFor(t, how+": dashboard back after SIGCONT", 5*time.Second, func() bool {
			return tm.Display("#{alternate_on}") == "1" && dashboard(tm.Screen())
		})
	}
	tm.Run("send-keys", "q")
	s := tm.WaitScreen("exit", 5*time.Second, func(s string) bool { return strings.Contains(s, "EXIT=") })
	if !strings.Contains(s, "EXIT=0") || !strings.Contains(s, "suspended 2x") {
		t.Errorf("after q:\n%s", s)
	}
}

// procState is the state letter of /proc/PID/stat (R, S, T...); "" unknown.
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return string(b[i+2])
	}
	return ""
}

// dashboardInShell runs offtop with args in an interactive bash (job
// control: ctrl+z gives the terminal to the shell, fg takes it back) in a
// 100x30 tmux pane, waits for the dashboard and returns the pane and
// offtop's pid. It skips without tmux or bash.
func dashboardInShell(t *testing.T, args ...string) (*testkit.Tmux, int) {
	t.Helper()
	tm, bin, pane := jobShell(t)
	tm.Run("send-keys", bin+" "+strings.Join(args, " "), "Enter")
	tm.WaitScreen("dashboard", 10*time.Second, func(s string) bool { return strings.Contains(s, "sizes tried") })
	return tm, testkit.ChildOf(t, pane)
}

// TestStopSignalWinsOverSuspension: a dashboard suspended with ctrl+z in
// an interactive shell (job control: the shell takes the terminal) and
// then sent SIGTERM and SIGCONT, as kill %1 does, ends after the SIGCONT
// with status 143 instead of stopping itself again in the background, and
// leaves the alternate screen off (within stopNotWaiting here; 2s in
// TestShapeStopsWithin2s).
func TestStopSignalWinsOverSuspension(t *testing.T) { stopSuspendedOnTerm(t, stopNotWaiting) }

// stopSuspendedOnTerm suspends the dashboard with ctrl+z, sends SIGTERM
// then SIGCONT, and wants the exit within within, 143 in the shell's
// report and the alternate screen off.
func stopSuspendedOnTerm(t *testing.T, within time.Duration) {
	t.Helper()
	tm, pid := dashboardInShell(t, "--scenario", "count", "--workers", "1")
	tm.Run("send-keys", "C-z")
	testkit.WaitFor(t, "stopped, alternate screen off", 5*time.Second, func() bool {
		return procState(pid) == "T" && tm.Display("#{alternate_on}") == "0"
	})
	// The shell reports the job's end when it reaps it (set -b), not
	// only before a prompt that may have come already.
	tm.Run("send-keys", "set -b; echo notify-on", "Enter")
	tm.WaitScreen("set -b in force", 5*time.Second, func(s string) bool { return strings.Contains(s, "\nnotify-on\n") })
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	testkit.WaitFor(t, "exit after SIGTERM, SIGCONT", within, func() bool {
		st := procState(pid)
		return st == "" || st == "Z"
	})
	t.Logf("exit %v after SIGTERM, SIGCONT", time.Since(sent).Round(time.Millisecond))
	s := tm.WaitScreen("the shell's report", 0, func(s string) bool { return strings.Contains(s, "Exit 143") })
	if on := tm.Display("#{alternate_on}"); on != "0" {
		t.Errorf("alternate screen on after the exit:\n%s", s)
	}
}

// TestResumeRedrawsEveryTime: ctrl+z then fg in an interactive shell,
// again and again (and once resized while suspended), brings the
// dashboard back each time: the alternate screen on and the dashboard on
// it. Bubble Tea's renderer could come back with its frame ticker
// stopped (about one resume in five), drawing nothing ever after.
func TestResumeRedrawsEveryTime(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	tm, pid := dashboardInShell(t, "--scenario", "count")
	dashboard := func(s string) bool { return strings.Contains(s, "sizes tried") }
	for i := range 10 {
		tm.Run("send-keys", "C-z")
		testkit.WaitFor(t, fmt.Sprintf("resume %d: stopped, alternate screen off", i), 5*time.Second, func() bool {
			return procState(pid) == "T" && tm.Display("#{alternate_on}") == "0"
		})
		if i == 5 {
			tm.Run("resize-window", "-x", "70", "-y", "20")
		}
		tm.Run("send-keys", "fg", "Enter")
		testkit.WaitFor(t, fmt.Sprintf("resume %d: the dashboard back", i), 5*time.Second, func() bool {
			return tm.Display("#{alternate_on}") == "1" && dashboard(tm.Screen())
		})
	}
	tm.Run("send-keys", "q")
	tm.WaitScreen("the summary", 5*time.Second, func(s string) bool { return strings.Contains(s, "suspended 10x") })
}

// jobShell starts an interactive bash (job control) in a 100x30 tmux
// pane and returns the pane, the offtop binary and the pane's pid (the
// shell's: offtop is its child). It skips without tmux or bash.
func jobShell(t *testing.T) (tm *testkit.Tmux, bin string, pane int) {
	t.Helper()
	bin = buildBinary(t)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash for job control")
	}
	tm = testkit.NewTmux(t, 100, 30, "bash --norc --noprofile -i")
	return tm, bin, tm.PanePID()
}

// TestStopAtResumeDrawsNothing: ctrl+z in an interactive shell, then
// kill -INT %1 (the signal waits for the resume) or kill -TERM %1 (bash
// continues the job at once, in the background), then fg, ten times: each
// run exits as its signal says, the alternate screen off and no dashboard
// text left on the normal screen (the summary printed over the last
// frame). Bubble Tea's graceful quit drew its last frame after the
// suspension had left the alternate screen, about one stop in seven.
func TestStopAtResumeDrawsNothing(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	if testing.Short() {
		t.Skip("ten real runs in tmux")
	}
	tm, bin, pane := jobShell(t)
	altOn := func() string { return tm.Display("#{alternate_on}") }
	dashboardText := []string{"sizes tried", "? help", "q quit", "loop and workers"}
	for i := range 10 {
		sig, want := "INT", "EXIT=130"
		if i%2 == 1 {
			sig, want = "TERM", "EXIT=143"
		}
		round := fmt.Sprintf("round %d (kill -%s %%1)", i, sig)
		tm.Run("send-keys", "clear; "+bin+" --scenario count --workers 1", "Enter")
		tm.WaitScreen(round+": dashboard", 10*time.Second, func(s string) bool {
			return altOn() == "1" && strings.Contains(s, "sizes tried")
		})
		pid := testkit.ChildOf(t, pane)
		tm.Run("send-keys", "C-z")
		testkit.WaitFor(t, round+": stopped, alternate screen off", 5*time.Second, func() bool {
			return procState(pid) == "T" && altOn() == "0"
		})
		// The job may be gone before fg runs (kill -TERM continues it):
		// bash then says so and fg's status is 1; the job's own status is
		// in bash's notice.
		tm.Run("send-keys", "kill -"+sig+" %1; fg; echo EXIT=$?", "Enter")
		s := tm.WaitScreen(round+": exit", stopNotWaiting, func(s string) bool { return exitLine(s) != "" })
		if sig == "TERM" && strings.Contains(s, "job has terminated") {
			want = "EXIT=1"
		}
		if got := exitLine(s); got != want {
			t.Errorf("%s: %s, want %s:\n%s", round, got, want, s)
		}
		if on := altOn(); on != "0" {
			t.Errorf("%s: alternate screen on after the exit:\n%s", round, s)
		}
		if !strings.Contains(s, "offtop ran") {
			t.Errorf("%s: no summary:\n%s", round, s)
		}
		for _, d := range dashboardText {
			if strings.Contains(s, d) {
				t.Fatalf("%s: %q from the dashboard on the normal screen after the exit:\n%s", round, d, s)
			}
		}
	}
}

// exitLine is the pane's line that starts with "EXIT=" (the shell's echo
// of a status, not the command that asks for it); "" when none.
func exitLine(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "EXIT=") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
