package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	"github.com/offtop/offtop/internal/session"
)

// buildBinary builds offtop once per test binary run, as it ships (no
// build tags).
func buildBinary(t *testing.T) string {
	t.Helper()
	return buildTagged(t, &binPath, "")
}

// buildTestHooksBinary builds offtop once per test binary run with
// -tags offtop_testhooks: the binary that reads OFFTOP_TEST_PANIC
// (testhooks.go), for the tests that inject a panic.
func buildTestHooksBinary(t *testing.T) string {
	t.Helper()
	return buildTagged(t, &hooksBinPath, "offtop_testhooks")
}

// buildTagged builds offtop with the build tags tags (none when "") into
// a temporary directory, once: *cache holds the path after the first call.
// Parallel tests share the one build (buildMu).
func buildTagged(t *testing.T, cache *string, tags string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if *cache != "" {
		return *cache
	}
	dir, err := os.MkdirTemp("", "offtop-e2e")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "offtop")
	args := []string{"build", "-o", bin}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	*cache = bin
	return bin
}

var (
	binPath, hooksBinPath string
	buildMu               sync.Mutex // guards the two paths and their builds
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, p := range []string{binPath, hooksBinPath} {
		if p != "" {
			os.RemoveAll(filepath.Dir(p))
		}
	}
	os.Exit(code)
}

// TestShippedBinaryHasNoTestHooks: the binary built without tags holds
// no test-only panic hook: the name of their variable is nowhere in its
// bytes (the tagged build holds it, so the check can tell them apart).
func TestShippedBinaryHasNoTestHooks(t *testing.T) {
	const env = "OFFTOP_TEST_PANIC"
	for _, c := range []struct {
		bin  string
		want bool
	}{
		{buildBinary(t), false},
		{buildTestHooksBinary(t), true},
	} {
		b, err := os.ReadFile(c.bin)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(b, []byte(env)); got != c.want {
			t.Errorf("%s holds %q: %v, want %v", c.bin, env, got, c.want)
		}
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// TestBinaryInTmux is the user's view: the dashboard appears at 100x30,
// "4" shows 4 workers (within 5s, for a busy machine), "0" shows inline, "q" exits 0 and leaves
// the alternate screen.
func TestBinaryInTmux(t *testing.T) {
	bin := buildBinary(t)
	tm := testkit.NewTmux(t, 100, 30, bin+" --scenario stall --workers 1; echo EXIT=$?; sleep 60")
	tm.WaitScreen("dashboard", 10*time.Second, func(s string) bool {
		return strings.Contains(s, "offtop") && strings.Contains(s, "sizes tried") && strings.Contains(s, "workers 1")
	})
	tm.Run("send-keys", "4")
	tm.WaitScreen("workers 4", 5*time.Second, func(s string) bool { return strings.Contains(firstLine(s), "workers 4") })
	tm.Run("send-keys", "0")
	tm.WaitScreen("inline", 5*time.Second, func(s string) bool { return strings.Contains(firstLine(s), "inline") })
	tm.Run("send-keys", "q")
	s := tm.WaitScreen("EXIT=", 5*time.Second, func(s string) bool { return strings.Contains(s, "EXIT=") })
	if !strings.Contains(s, "EXIT=0") {
		t.Errorf("exit status not 0:\n%s", s)
	}
	if strings.Contains(s, "sizes tried") {
		t.Errorf("dashboard left on the normal screen:\n%s", s)
	}
	if alt := tm.Display("#{alternate_on}"); alt != "0" {
		t.Errorf("alternate screen still on (%s)", alt)
	}
}

// TestHeadlessLinesAreJSON runs the binary headless for 3s: every line
// parses as JSON with the required fields (session.RequiredJSONFields), and the counts add up.
func TestHeadlessLinesAreJSON(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	bin := buildBinary(t)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "--headless", "--duration", "3s", "--scenario", "stall", "--keys", "1s:2 2s:0")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	workers := map[float64]bool{}
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", n+1, err, sc.Text())
		}
		for _, k := range session.RequiredJSONFields {
			if _, ok := m[k]; !ok {
				t.Fatalf("line %d lacks %q", n+1, k)
			}
		}
		sum := m["completed"].(float64) + m["failed"].(float64) + m["timed_out"].(float64) + m["running"].(float64) + m["queue_depth"].(float64)
		if sum != m["submitted"].(float64) {
			t.Fatalf("line %d: counts do not add up: %s", n+1, sc.Text())
		}
		workers[m["workers"].(float64)] = true
		n++
	}
	if n < 8 {
		t.Errorf("%d lines in 3s at 250ms, want about 12", n)
	}
	if !workers[2] || !workers[0] {
		t.Errorf("--keys steps not applied: workers seen %v", workers)
	}
}

// TestBadInputExits2 checks each bad input gives one line naming the
// problem and exit status 2, with no stack trace.
func TestBadInputExits2(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workers", "-1"}, "--workers"},
		{[]string{"--workers", "257"}, "--workers"},
		{[]string{"--workers", "abc"}, "--workers"},
		{[]string{"--interval", "0"}, "--interval"},
		{[]string{"--interval", "-1s"}, "--interval"},
		{[]string{"--interval", "1ns"}, "--interval"},
		{[]string{"--gomaxprocs", "0"}, "--gomaxprocs"},
		{[]string{"--scale", "NaN"}, "--scale"},
		{[]string{"--resolution", "0"}, "--resolution"},
		{[]string{"--duration", "abc"}, "--duration"},
		{[]string{"--scenario", "nope"}, "--scenario"},
		{[]string{"--keys", "2s"}, "--keys"},
		{[]string{"--keys", "xs:4"}, "--keys"},
		{[]string{"--keys", "2s:z"}, "--keys"},
		{[]string{"--nope"}, "--nope"},
		{[]string{"sweeep"}, "sweeep"},
		{[]string{"sweep", "--workers", "1,x"}, "--workers"},
		{[]string{"sweep", "--workers", ""}, "--workers"},
		{[]string{"sweep", "--workers", "300"}, "--workers"},
		{[]string{"sweep", "--duration", "0s"}, "--duration"},
		{[]string{"sweep", "--bogus"}, "--bogus"},
		{nil, "not a terminal"}, // stdout is a pipe here
	} {
		var stderr bytes.Buffer
		cmd := exec.Command(bin, c.args...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 {
			t.Errorf("%v: exit %v, want 2", c.args, err)
		}
		first := firstLine(stderr.String())
		if !strings.Contains(first, c.want) || strings.Contains(stderr.String(), "goroutine ") {
			t.Errorf("%v: stderr %q, want one line naming %s", c.args, stderr.String(), c.want)
		}
	}
}

// TestSweepPrintsTableAndJSON runs a short sweep of the stall scenario both
// ways: a table with its first line, and one valid JSON object.
func TestSweepPrintsTableAndJSON(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	bin := buildBinary(t)
	args := []string{"sweep", "--scenario", "stall", "--workers", "0,1", "--duration", "1s"}
	// The table and the JSON, two sweeps at once: each mostly waits.
	var (
		table, out []byte
		terr, jerr error
		wg         sync.WaitGroup
	)
	wg.Add(2)
	go func() { defer wg.Done(); table, terr = exec.Command(bin, args...).Output() }()
	go func() {
		defer wg.Done()
		out, jerr = exec.Command(bin, append(slices.Clip(args), "--json")...).Output()
	}()
	wg.Wait()
	if terr != nil {
		t.Fatalf("sweep: %v", terr)
	}
	lines := strings.Split(strings.TrimSpace(string(table)), "\n") // first line, header, 2 rows, best, machine
	if !strings.HasPrefix(string(table), "stall: GOMAXPROCS ") || len(lines) != 6 || !strings.HasPrefix(lines[5], "machine: ") {
		t.Errorf("table:\n%s", table)
	}
	if jerr != nil {
		t.Fatalf("sweep --json: %v", jerr)
	}
	var res struct {
		Scenario string
		Rows     []map[string]any
		Machine  *struct {
			RunDelayBefore float64  `json:"run_delay_before"`
			RunDelayAfter  *float64 `json:"run_delay_after"`
			Limit          float64  `json:"run_delay_limit"`
		}
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Scenario != "stall" || len(res.Rows) != 2 {
		t.Errorf("sweep --json: %v\n%s", err, out)
	}
	if m := res.Machine; m == nil || m.RunDelayBefore < 0 || m.RunDelayBefore > 1.5 || m.RunDelayAfter == nil || m.Limit != 0.1 {
		t.Errorf("sweep --json: machine %+v, want run delays read before and after, limit 0.1\n%s", m, out)
	}
}

// headlessLast runs the binary headless through sh -c script (where "$@"
// are offtop's arguments) and returns its last JSON line.
func headlessLast(t *testing.T, script string, args ...string) map[string]any {
	t.Helper()
	out, err := exec.Command("sh", append([]string{"-c", script, "sh"}, args...)...).Output()
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
		t.Fatalf("last line: %v\n%s", err, out)
	}
	return m
}

// TestCgroupQuotaForReal puts offtop in a cpu cgroup with a 0.5 CPU quota
// (v1: cpu.cfs_quota_us 50000 / cpu.cfs_period_us 100000; v2: cpu.max):
// it must read cpu_limit 0.5, suggest 1 worker, show Go's GOMAXPROCS 2
// (the runtime rounds up, at least 2), and flag 2 workers oversubscribed.
// It skips, saying why, where cgroups are not writable (not root, or no
// cpu controller).
func TestCgroupQuotaForReal(t *testing.T) {
	bin := buildBinary(t)
	dir, write := "", map[string]string{}
	name := "offtop-test-" + strconv.Itoa(os.Getpid())
	switch {
	case fileExists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"):
		dir = "/sys/fs/cgroup/cpu/" + name
		write["cpu.cfs_period_us"], write["cpu.cfs_quota_us"] = "100000", "50000"
	case fileExists("/sys/fs/cgroup/cgroup.controllers"):
		dir = "/sys/fs/cgroup/" + name
		write["cpu.max"] = "50000 100000"
	default:
		t.Skip("no cgroup v1 cpu hierarchy or v2 unified hierarchy at /sys/fs/cgroup")
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cgroups not writable here (%v): run as root on a machine with a writable cgroup fs", err)
	}
	defer os.Remove(dir)
	for _, f := range []string{"cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.max"} {
		if v, ok := write[f]; ok {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(v), 0o644); err != nil {
				t.Skipf("cannot set %s (%v): no cpu controller for this cgroup", f, err)
			}
		}
	}
	m := headlessLast(t, `echo $$ > "$1/cgroup.procs" && shift && exec "$@"`, dir, bin,
		"--headless", "--duration", "1200ms", "--scenario", "count", "--workers", "2", "--scale", "0.05")
	want := map[string]any{"cpu_limit": 0.5, "suggested_workers": 1.0, "gomaxprocs": 2.0, "oversubscribed": true}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v (rule %q)", k, m[k], v, m["suggested_rule"])
		}
	}
}

// TestAffinityOneCPU runs offtop under taskset -c 0: one CPU in the mask.
func TestAffinityOneCPU(t *testing.T) {
	bin := buildBinary(t)
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip("taskset not installed (util-linux)")
	}
	m := headlessLast(t, `exec taskset -c 0 "$@"`, bin, "--headless", "--duration", "800ms", "--scenario", "count", "--scale", "0.05")
	if m["affinity_cpus"] != 1.0 || m["suggested_workers"] != 1.0 {
		t.Errorf("under taskset -c 0: affinity_cpus %v, suggested_workers %v (%v)", m["affinity_cpus"], m["suggested_workers"], m["suggested_rule"])
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestHeadlessIntoClosedPipe: `offtop --headless | head -1` ends quietly,
// status 0 or 141 (SIGPIPE), no stack trace.
func TestHeadlessIntoClosedPipe(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command("bash", "-c",
		`"$0" --headless --no-summary --scenario stall 2>"$1" | head -1 >/dev/null; echo "${PIPESTATUS[0]}"; cat "$1"`,
		bin, filepath.Join(t.TempDir(), "stderr")).Output()
	if err != nil {
		t.Fatal(err)
	}
	status, stderr, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if status != "0" && status != "141" {
		t.Errorf("exit status %s, want 0 or 141; stderr %q", status, stderr)
	}
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Errorf("stack trace on a closed pipe:\n%s", stderr)
	}
}

// TestStopTheWorldFromOutside: SIGSTOP for 4s, then SIGCONT. offtop must
// not panic, its probe max must read about the 4s it was stopped (the
// histogram holds up to 100s, beyond that it clamps and counts), the
// skipped sample times are counted, and sampling resumes.
func TestStopTheWorldFromOutside(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	if testing.Short() {
		t.Skip("6s of real time")
	}
	bin := buildBinary(t)
	var stdout lockedBuffer
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "--headless", "--no-summary", "--scenario", "stall", "--stall", "1ms", "--window", "1m")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// lastTS is the t_s of the newest whole line, -1 before the first.
	lastTS := func() float64 {
		out := stdout.String()
		end := strings.LastIndexByte(out, '\n')
		if end < 0 {
			return -1
		}
		var l struct {
			TS float64 `json:"t_s"`
		}
		if json.Unmarshal([]byte(out[strings.LastIndexByte(out[:end], '\n')+1:end]), &l) != nil {
			return -1
		}
		return l.TS
	}
	before := testkit.Poll(t, "a first sample", 0, lastTS, func(ts float64) bool { return ts >= 0 })
	cmd.Process.Signal(syscall.SIGSTOP)
	time.Sleep(4 * time.Second) // the stop itself: a process held for 4s of real time
	cmd.Process.Signal(syscall.SIGCONT)
	// Sampling resumes: a sample stamped a period past the stop's end.
	testkit.Poll(t, "a sample after the stop", 0, lastTS, func(ts float64) bool { return ts >= before+4.25 })
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if strings.Contains(stderr.String(), "panic") {
		t.Fatalf("panic after SIGCONT:\n%s", stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var last struct {
		TS            float64 `json:"t_s"`
		SamplesMissed int64   `json:"samples_missed"`
		ProbeTotal    struct {
			Max *float64 `json:"max_ms"`
		} `json:"probe_total"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("last line: %v", err)
	}
	// The sample due first after SIGSTOP is late by the stop less the
	// part of a 10ms period that had passed: >= 4s - 10ms; 3900 leaves
	// room for the stop and continue signals' own delivery.
	if last.ProbeTotal.Max == nil {
		t.Errorf("probe max null after a 4s stop")
	} else if *last.ProbeTotal.Max < 3900 {
		t.Errorf("probe max %.0f ms after a 4s stop, want >= 3900", *last.ProbeTotal.Max)
	}
	if last.SamplesMissed < 12 {
		t.Errorf("samples_missed %d after 4s stopped at 250ms, want about 16", last.SamplesMissed)
	}
	if last.TS < before+4.25 {
		t.Errorf("last sample at %.1fs: sampling did not resume", last.TS)
	}
}
