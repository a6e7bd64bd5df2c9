package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sweep"
)

// TestSweepSizingRefusals: a bad --repeat, --fit over too few sizes and
// an --hdr-log that cannot be made each give one line naming the flag and
// the reason (the usage line after it), exit 2, before any run.
func TestSweepSizingRefusals(t *testing.T) {
	bin := buildBinary(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--repeat", "0"}, `--repeat: outside 1..100: "0"`},
		{[]string{"--repeat", "-1"}, `--repeat: outside 1..100: "-1"`},
		{[]string{"--repeat", "abc"}, `--repeat: not a whole number: "abc"`},
		{[]string{"--repeat", "1000"}, `--repeat: outside 1..100: "1000"`},
		{[]string{"--fit", "--workers", "0,1,2,4"}, "--fit: needs at least 4 sizes of 1 or more workers, --workers has 3"},
		{[]string{"--fit", "--workers", "1"}, "--fit: needs at least 4 sizes"},
		{[]string{"--hdr-log", filepath.Join(file, "sub")}, "--hdr-log: cannot make the directory"},
		{[]string{"--load", "x"}, "--load: not a whole number"},
		{[]string{"--load", "/ping=20/s"}, `--load: "/ping=20/s" is a SPEC, an HTTP load, which needs --attach ADDR`},
		{[]string{"--fit", "--workers", "1,2,3,4", "--per-task"}, "--fit: fits one configuration's sizes, not with --loops, --per-task or --priority"},
	} {
		var stderr bytes.Buffer
		cmd := exec.Command(bin, append([]string{"sweep"}, c.args...)...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("%v: exit %v, want 2", c.args, err)
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if !strings.Contains(lines[0], c.want) || len(lines) != 2 || !strings.HasPrefix(lines[1], "usage: ") {
			t.Errorf("%v: stderr %q, want %q then the usage line", c.args, stderr.String(), c.want)
		}
	}
}

// TestSweepRepeatsFitsAndLogs runs the binary for real, briefly: count at
// four sizes, twice each; the JSON has two runs a row with their spread,
// a fit with its rule and a size, and the HDR logs read back with
// hdrhistogram-go's reader, six histograms a size, tagged in turn
// (TestHdrLogRoundTrip pins the counts of a round trip exactly).
func TestSweepRepeatsFitsAndLogs(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "sweep", "--scenario", "count", "--scale", "0.02", "--workers", "1,2,3,4",
		"--repeat", "2", "--duration", "1s", "--fit", "--json", "--hdr-log", dir)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	// Interleaved: 1,2,3,4,1,2,3,4.
	var order []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if f := strings.Fields(l); len(f) > 3 && f[0] == "sweep:" {
			order = append(order, f[3])
		}
	}
	if strings.Join(order, ",") != "1,2,3,4,1,2,3,4" {
		t.Errorf("order %v:\n%s", order, stderr.String())
	}
	var res struct {
		Repeat int
		Rows   []struct {
			Workers int
			Repeats int
			Spread  map[string]struct{ Median, Min, Max float64 }
			Size    struct {
				ProbeCount int64 `json:"probe_count"`
			}
		}
		Fit *struct {
			Rule        string   `json:"rule"`
			Recommended int      `json:"recommended"`
			Points      int      `json:"points"`
			Line        string   `json:"line"`
			Lambda      *float64 `json:"lambda"`
		}
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Repeat != 2 || len(res.Rows) != 4 || res.Fit == nil || res.Fit.Rule != "knee" || res.Fit.Points != 8 ||
		res.Fit.Recommended < 1 || res.Fit.Lambda == nil || !strings.HasPrefix(res.Fit.Line, "recommended: ") {
		t.Fatalf("result %s", out)
	}
	for _, r := range res.Rows {
		sp, ok := r.Spread["throughput_per_s"]
		if r.Repeats != 2 || !ok || sp.Min > sp.Median || sp.Median > sp.Max {
			t.Errorf("row %+v", r)
		}
		f, err := os.Open(filepath.Join(dir, "count-w"+string(rune('0'+r.Workers))+".hlog"))
		if err != nil {
			t.Fatal(err)
		}
		rd := hdr.NewHistogramLogReader(f)
		var tags []string
		var probes []int64
		for {
			h, err := rd.NextIntervalHistogram()
			if err != nil {
				t.Fatal(err)
			}
			if h == nil {
				break
			}
			tags = append(tags, h.Tag())
			if h.Tag() == "loop" {
				probes = append(probes, h.TotalCount())
			}
		}
		f.Close()
		if strings.Join(tags, ",") != "loop,headline,task,loop,headline,task" {
			t.Errorf("%d workers: tags %v", r.Workers, tags)
		}
		// Each run's row and log are one read: the row's median is
		// between the two logs.
		if len(probes) != 2 || r.Size.ProbeCount > max(probes[0], probes[1]) || r.Size.ProbeCount < min(probes[0], probes[1]) || min(probes[0], probes[1]) == 0 {
			t.Errorf("%d workers: logged probe counts %v, row %d", r.Workers, probes, r.Size.ProbeCount)
		}
	}
}

// TestSearchOnTheDashboard: --keys starts the size search (a); the
// dashboard shows it stepping, then one answer: the size picked, the one
// row marked '*', with its rule's line, or on a busy machine no pick and
// no mark, said uncertain; a key during a second search cancels it.
func TestSearchOnTheDashboard(t *testing.T) {
	bin := buildBinary(t)
	tm := testkit.NewTmux(t, 100, 30, bin+" --scenario count --scale 0.05 --window 500ms --keys '1s:a'; sleep 60")
	tm.WaitScreen("the search stepping", 15*time.Second, func(s string) bool { return strings.Contains(s, "any key cancels") })
	done := tm.WaitScreen("the search's result", 40*time.Second, func(s string) bool {
		return strings.Contains(s, "from the search") || strings.Contains(s, "the search is uncertain")
	})
	marks := regexp.MustCompile(`(?m)^[> ][*R] +[0-9]+ `).FindAllString(done, -1)
	switch {
	case strings.Contains(done, "the search is uncertain") && len(marks) != 0:
		t.Errorf("uncertain, yet a row is marked %q:\n%s", marks, done)
	case strings.Contains(done, "from the search") && (len(marks) != 1 || strings.Contains(marks[0], "R")):
		t.Errorf("want one row marked '*', got %q:\n%s", marks, done)
	}
	tm.Run("send-keys", "a")
	tm.WaitScreen("a second search", 10*time.Second, func(s string) bool { return strings.Contains(s, "any key cancels") })
	tm.Run("send-keys", "3")
	tm.WaitScreen("the cancel", 10*time.Second, func(s string) bool { return strings.Contains(s, "auto: canceled") })
	tm.Run("send-keys", "q")
}

// TestSweepHelpDefinesEveryColumn: every column head a sweep table can
// print, for every scenario, with repeats and a fit, is defined in
// offtop sweep --help (the headline and the scenario's keys by their
// generic entries).
func TestSweepHelpDefinesEveryColumn(t *testing.T) {
	defined := func(head string) bool {
		for _, l := range strings.Split(sweepColumns, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), head+" ") || strings.TrimSpace(l) == head {
				return true
			}
		}
		return false
	}
	for _, name := range scenarios.Names() {
		one, two := 1.0, 2.0
		row := func(w, g int) sweep.Row {
			return sweep.Row{Workers: w, ThroughputPerS: 10, Balanced: true, ServiceMS: &one, Extra: map[string]*float64{},
				Size: session.SizeJSON{Workers: w, GOMAXPROCS: g, HeldS: 5, ProbeP99MS: &one, HeadlineP99MS: &two}}
		}
		named := row(2, 2)
		named.Name, named.Loops = "both", 2
		res := sweep.Result{Scenario: name, Repeat: 3, Columns: scenarios.SweepKeys(name), Rows: []sweep.Row{named, row(1, 1)}}
		var b bytes.Buffer
		if err := res.Write(&b); err != nil {
			t.Fatal(err)
		}
		head := strings.Split(b.String(), "\n")[1]
		spec := scenarios.Headline(name)
		for _, h := range regexp.MustCompile(`\S+( \S+)*`).FindAllString(head, -1) {
			switch {
			case h == spec.Label()+" "+spec.Unit:
				h = "HEADLINE p99"
			case slices.Contains(res.Columns, h):
				h = "SCENARIO KEYS"
			case h == "name" || h == "Loops":
				h = "name, Loops"
			}
			if !defined(h) {
				t.Errorf("%s: column %q is not defined in sweep --help", name, h)
			}
		}
	}
}

// readOnlyDir is a directory nobody may create files in: mode 0555, made
// immutable too (chattr +i) when the tests run as root; the test is
// skipped where neither holds.
func readOnlyDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
			t.Skipf("root, and chattr +i failed: %v %s", err, out)
		}
		t.Cleanup(func() { _ = exec.Command("chattr", "-i", dir).Run() })
	}
	if f, err := os.CreateTemp(dir, "probe"); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Skip("cannot make a read-only directory here")
	}
	return dir
}

// TestSweepHdrLogUnwritableRefusedFirst: an --hdr-log directory that
// exists but cannot be written is refused before the first run: one line
// with the reason, the usage line, exit 2, no run started, nothing left.
func TestSweepHdrLogUnwritableRefusedFirst(t *testing.T) {
	bin := buildBinary(t)
	dir := readOnlyDir(t)
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "sweep", "--scenario", "count", "--workers", "1", "--repeat", "1", "--duration", "1s", "--hdr-log", dir)
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("exit %v, want 2", err)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if !strings.Contains(lines[0], "--hdr-log: cannot write there: ") || len(lines) != 2 || !strings.HasPrefix(lines[1], "usage: ") {
		t.Errorf("stderr %q, want the reason then the usage line", stderr.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in the directory: %v", entries)
	}
}
