package main

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/report"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
)

func msd(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// lastSnap is a final sample with size rows on two scenarios, as the
// session builds them.
func lastSnap() session.Snapshot {
	row := func(scen string, w int, held time.Duration, probe, head float64, done int64, cpu float64, cur bool) session.SizeRow {
		return session.SizeRow{Scenario: scen, Workers: w, GOMAXPROCS: 2, Held: held,
			Probe:        hist.Summary{P99: msd(probe), Max: msd(probe * 1.5), Count: 800},
			Headline:     hist.Summary{P99: msd(head), Max: msd(head * 2), Count: 160},
			HeadlineName: "ping", Completed: done, CPUSeconds: cpu, CPUKnown: true,
			AnswerKnown: true, AnswerOK: true, Current: cur}
	}
	return session.Snapshot{
		Elapsed: session.Seconds(34 * time.Second),
		Sizes: []session.SizeRow{
			row("server", 0, 8003*time.Millisecond, 780.25, 793.4, 170, 8.1, false),
			row("server", 1, 7990*time.Millisecond, 1.234, 8.41, 180, 9.9, false),
			row("server", 2, 8010*time.Millisecond, 55.5, 57.02, 350, 15.8, false),
			{Scenario: "count", Workers: 4, GOMAXPROCS: 2, Held: 10 * time.Second, HeadlineName: "batch wall", Current: true},
		},
		Run:     session.Run{Scenario: "count"},
		Machine: session.Machine{GOMAXPROCS: 2, NumCPU: 2},
		Process: session.Process{CPUPercent: 100, CPUSeconds: 40},
	}
}

// TestSummaryPrintsTheJSONFigures: every figure of every row of the last
// line's sizes field is in the summary, on that row, in column order: the
// summary and the headless stream agree figure for figure.
func TestSummaryPrintsTheJSONFigures(t *testing.T) {
	snap := lastSnap()
	sm := &summary{First: "server"}
	sm.Add(snap)
	sm.Finish(35 * time.Second)
	out := ansi.Strip(sm.String())

	b, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var line struct {
		Sizes []session.SizeJSON `json:"sizes"`
	}
	if err := json.Unmarshal(b, &line); err != nil {
		t.Fatal(err)
	}
	if len(line.Sizes) != 4 {
		t.Fatalf("JSON sizes has %d rows, want 4", len(line.Sizes))
	}
	for _, r := range line.Sizes {
		if !summaryHasRow(out, r) {
			t.Errorf("no summary row for %s/%d with the JSON's figures %+v:\n%s", r.Scenario, r.Workers, r, out)
		}
	}
	for _, w := range []string{"offtop ran 35.0s", "server 24.0s  answer_ok ok", "pick: 1 worker, lowest ping p99 (8.41 ms, Loop p99 ",
		"count 10s  answer_ok n/a", "ping p99 ms", "Loop p99 ms", "tasks/s"} {
		if !strings.Contains(out, w) {
			t.Errorf("summary lacks %q:\n%s", w, out)
		}
	}
}

// summaryHasRow reports whether out has a table row with exactly r's
// figures, as the JSON line carries them, in column order.
func summaryHasRow(out string, r session.SizeJSON) bool {
	want := []string{report.SizeCell(r.Workers), report.HeldCell(r), report.Opt(r.ProbeP99MS), report.Opt(r.ProbeMaxMS)}
	if !scenarios.Headline(r.Scenario).FromProbe {
		want = append(want, report.Opt(r.HeadlineP99MS))
	}
	want = append(want, report.Figure(r.ThroughputPerS), report.Opt(r.CPUPerWall), report.Answer(r.AnswerOK))
	for _, l := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(strings.TrimLeft(l, " >*")), " ") == strings.Join(want, " ") {
			return true
		}
	}
	return false
}

// TestBinarySummaryMatchesLastJSONLine runs the binary headless with a
// key script: the summary on stderr has a row per entry of the last JSON
// line's sizes that the summary's own rule lists (held report.MinHeld or
// current), with the same figures, and counts the others in its brief
// line: how long a busy machine let a size be held decides nothing here.
func TestBinarySummaryMatchesLastJSONLine(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	if testing.Short() {
		t.Skip("runs the binary")
	}
	bin := buildBinary(t)
	var stdout, stderr strings.Builder
	cmd := exec.Command(bin, "--headless", "--scenario", "server", "--duration", "5s", "--keys", "0s:0 2s:1 3s:tab")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	last := lastSizes(t, stdout.String())
	if len(last) < 3 {
		t.Fatalf("last line has %d size rows, want server 0, server 1 and the next scenario's: %+v", len(last), last)
	}
	out := ansi.Strip(stderr.String())
	brief := map[string]int{} // per scenario, the rows the summary leaves out
	for _, r := range last {
		listed := summaryHasRow(out, r)
		// held_s is rounded to the ms: at 1.000 the rule could go either way
		mustList := r.Current || r.HeldS > report.MinHeld.Seconds()+0.0005
		mayList := mustList || r.HeldS >= report.MinHeld.Seconds()-0.0005
		switch {
		case mustList && !listed:
			t.Errorf("summary lacks %s/%d as the JSON has it: %+v\n%s", r.Scenario, r.Workers, r, out)
		case !listed:
			brief[r.Scenario]++
		case !mayList:
			t.Errorf("summary lists %s/%d, held %.3fs, under the %v it lists from: %+v\n%s", r.Scenario, r.Workers, r.HeldS, report.MinHeld, r, out)
		}
	}
	for _, name := range report.Scenarios(sizeRowsOf(last)) {
		want := report.Table{Brief: brief[name]}.BriefLine(report.MinHeld)
		if got := briefLineOf(out, name); got != want {
			t.Errorf("%s: brief line %q, want %q (the JSON rows it does not list):\n%s", name, got, want, out)
		}
	}
}

// sizeRowsOf is enough of each JSON row for report.Scenarios.
func sizeRowsOf(js []session.SizeJSON) []session.SizeRow {
	rows := make([]session.SizeRow, len(js))
	for i, r := range js {
		rows[i] = session.SizeRow{Scenario: r.Scenario, Workers: r.Workers}
	}
	return rows
}

// briefLineOf is the "... not listed" line of scenario name's part of the
// summary out, trimmed; "" when it has none.
func briefLineOf(out, name string) string {
	in := false
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, " ") {
			in = strings.HasPrefix(l, name+" ")
			continue
		}
		if in && strings.HasSuffix(l, " not listed") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// TestSummaryMarksCurrentAndBest: the current row leads with '>', the best
// with '*', and only those.
func TestSummaryMarksCurrentAndBest(t *testing.T) {
	snap := lastSnap()
	snap.Sizes[1].Current, snap.Sizes[3].Current = true, false
	sm := &summary{}
	sm.Add(snap)
	sm.Finish(time.Duration(snap.Elapsed))
	n := 0
	for _, l := range strings.Split(ansi.Strip(sm.String()), "\n") {
		if strings.HasPrefix(l, "  >*") {
			n++
			if !strings.HasPrefix(strings.TrimLeft(l, " >*"), "1 ") {
				t.Errorf("marked row is not the 1-worker row: %q", l)
			}
		} else if strings.HasPrefix(l, "  >") || strings.HasPrefix(l, "   *") {
			t.Errorf("unexpected mark: %q", l)
		}
	}
	if n != 1 {
		t.Errorf("%d rows marked current and best, want 1", n)
	}
}

// TestSummaryNoSamples: a run ended before its first sample says so.
func TestSummaryNoSamples(t *testing.T) {
	sm := &summary{First: "login"}
	sm.Finish(100 * time.Millisecond)
	if got := sm.String(); got != "offtop ran 0.1s: login, no sample taken yet\n" {
		t.Errorf("got %q", got)
	}
}

// TestSummaryListsSizesHeldASecond: the summary lists the sizes the live
// panel lists (held 1s or more, and the current one), says in one line
// how many it left out, and still counts their time in the scenario's.
func TestSummaryListsSizesHeldASecond(t *testing.T) {
	snap := lastSnap()
	for w := 5; w < 205; w++ { // 200 sizes passed through, held 0s
		snap.Sizes = append(snap.Sizes, session.SizeRow{Scenario: "count", Workers: w, GOMAXPROCS: 2, Held: time.Millisecond, HeadlineName: "batch wall"})
	}
	sm := &summary{First: "server"}
	sm.Add(snap)
	sm.Finish(35 * time.Second)
	out := ansi.Strip(sm.String())
	var rows int
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(strings.TrimLeft(l, " >*")); len(f) > 2 && strings.HasSuffix(f[1], "s") && f[0] != "size" {
			if _, err := strconv.Atoi(f[0]); err == nil {
				rows++
			}
		}
	}
	if rows != 4 {
		t.Errorf("%d size rows, want the 4 held 1s or current:\n%s", rows, out)
	}
	if !strings.Contains(out, "200 sizes held under 1s not listed") {
		t.Errorf("no line for the 200 sizes left out:\n%s", out)
	}
	if !strings.Contains(out, "count 10.2s") {
		t.Errorf("count's time held does not count the brief sizes:\n%s", out)
	}
}

// TestSummaryAttachedSaysWhoseFigures: attached, offtop's own time comes
// first and the rest is said to be the program's since it started (a
// newcomer read "offtop ran 5.0s ... CPU 14.99s" as offtop's CPU).
func TestSummaryAttachedSaysWhoseFigures(t *testing.T) {
	snap := lastSnap()
	snap.Scenario, snap.Remote, snap.Elapsed = "service", "127.0.0.1:7070", session.Seconds(14500*time.Millisecond)
	sm := &summary{First: "service"}
	sm.Add(snap)
	sm.Finish(5 * time.Second)
	first, _, _ := strings.Cut(sm.String(), "\n")
	want := "offtop ran 5.0s attached to service at 127.0.0.1:7070; service, since it started 14.5s ago: GOMAXPROCS "
	if !strings.HasPrefix(first, want) {
		t.Errorf("first line %q, want it to start %q", first, want)
	}
}

// TestSummarySaysWhatTheServerServed: a size whose server answered
// requests (any client's: --no-load with an outside load generator) has a
// line with the latency the server measured per endpoint and how many.
func TestSummarySaysWhatTheServerServed(t *testing.T) {
	snap := lastSnap()
	snap.Sizes[1].Served = map[string]hist.Summary{
		"ping": {P99: msd(0.21), Count: 812}, "fast": {P99: msd(12.3), Count: 400}, "slow": {}}
	sm := &summary{First: "server"}
	sm.Add(snap)
	sm.Finish(35 * time.Second)
	out := ansi.Strip(sm.String())
	want := "  served at 1 worker (server side, any client): /fast p99 12.3 ms of 400, /ping p99 0.210 ms of 812\n"
	if !strings.Contains(out, want) || strings.Count(out, "served at") != 1 {
		t.Errorf("summary:\n%s\nwant the line %q", out, want)
	}
	// An attached program's middleware names its routes with their slash.
	snap.Sizes[1].Served = map[string]hist.Summary{"/fib": {P99: msd(296), Count: 90}, "/ping": {P99: msd(0.954), Count: 250}}
	sm = &summary{First: "server"}
	sm.Add(snap)
	sm.Finish(35 * time.Second)
	out = ansi.Strip(sm.String())
	want = "  served at 1 worker (server side, any client): /fib p99 296 ms of 90, /ping p99 0.954 ms of 250\n"
	if !strings.Contains(out, want) {
		t.Errorf("attached summary:\n%s\nwant the line %q", out, want)
	}
	// Under attach --load, offtop's own client's figures per size too.
	snap.LoadClient = &session.LoadClient{Spec: "/ping=50/s", Targets: []session.LoadTarget{{Target: "/ping",
		BySize: map[int]hist.Summary{1: {P99: msd(1.2), Count: 250}, 2: {P99: msd(4.5), Count: 249}, 3: {}}}}}
	sm = &summary{First: "server"}
	sm.Add(snap)
	sm.Finish(35 * time.Second)
	out = ansi.Strip(sm.String())
	for _, want := range []string{"  client at 1 worker (offtop's load, from due): /ping p99 1.20 ms of 250\n",
		"  client at 2 workers (offtop's load, from due): /ping p99 4.50 ms of 249\n"} {
		if !strings.Contains(out, want) || strings.Contains(out, "client at 3") {
			t.Errorf("summary under a load:\n%s\nwant the line %q and none for a size with no request", out, want)
		}
	}
}

// TestSummaryAttachedEarlierAndIdle: attached, the rows of a program that
// was replaced on the address print apart, under its pid, before this
// one's; a row's idle time is said beside its table, not in it.
func TestSummaryAttachedEarlierAndIdle(t *testing.T) {
	at := time.Date(2026, 12, 1, 20, 51, 3, 0, time.Local)
	row := func(w int, held, idle time.Duration, cur bool) session.SizeRow {
		return session.SizeRow{Scenario: "service", Workers: w, GOMAXPROCS: 2, Held: held, Idle: idle,
			HeadlineName: "probe", Completed: int64(held.Seconds() * 50), Current: cur}
	}
	snap := session.Snapshot{
		Elapsed: session.Seconds(20 * time.Second),
		Run:     session.Run{Scenario: "service"},
		Sizes:   session.SizeRows{row(2, 9*time.Second, 0, false), row(4, 8*time.Second, 10*time.Second, true)},
		Link: session.Link{Remote: "127.0.0.1:7070", PID: 4243, Since: at.Add(70 * time.Second),
			Earlier: []session.EarlierProgram{{PID: 4242, Since: at, Until: at.Add(65 * time.Second),
				Sizes: session.SizeRows{row(3, 30*time.Second, 0, true)}}}},
		Machine: session.Machine{GOMAXPROCS: 2, NumCPU: 2},
	}
	sm := &summary{First: "service"}
	sm.Add(snap)
	sm.Finish(25 * time.Second)
	out := ansi.Strip(sm.String())
	before, now, ok := strings.Cut(out, "now on 127.0.0.1:7070: pid 4243, since 20:52:13:")
	if !ok || !strings.Contains(before, "earlier on 127.0.0.1:7070: pid 4242, since 20:51:03 until 20:52:08") {
		t.Fatalf("no earlier program, then this one:\n%s", out)
	}
	if !strings.Contains(before, " 30s ") || strings.Contains(now, " 30s ") || !strings.Contains(now, " 9s ") {
		t.Errorf("rows not apart (the earlier's 3-worker row held 30s, this one's 2-worker 9s):\n%s", out)
	}
	if !strings.Contains(now, "idle, no pool task and no request (in no figure above): 4 workers 10.0s") {
		t.Errorf("no idle line:\n%s", out)
	}
}

// lastSizes is the sizes field of the last JSON line of a headless run's
// stdout.
func lastSizes(t *testing.T, stdout string) []session.SizeJSON {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var last struct {
		Sizes []session.SizeJSON `json:"sizes"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	return last.Sizes
}
