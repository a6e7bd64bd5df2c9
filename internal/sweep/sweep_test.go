package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/runq"
	"github.com/offtop/offtop/internal/session"
)

func TestParseWorkers(t *testing.T) {
	got, err := ParseWorkers("0,1, 2,4,8")
	if err != nil || len(got) != 5 || got[4] != 8 {
		t.Fatalf("ParseWorkers = %v, %v", got, err)
	}
	for _, bad := range []string{"", "1,,2", "a", "-1", "257", "1,1", "1;2"} {
		if _, err := ParseWorkers(bad); !errors.Is(err, ErrWorkers) {
			t.Errorf("ParseWorkers(%q) = %v, want ErrWorkers", bad, err)
		}
	}
}

func TestSpeedupsAgainstOneWorker(t *testing.T) {
	rows := []Row{{Workers: 0, ThroughputPerS: 5}, {Workers: 1, ThroughputPerS: 10}, {Workers: 2, ThroughputPerS: 18}}
	speedups(rows)
	if *rows[2].Speedup != 1.8 || *rows[2].Efficiency != 0.9 || *rows[0].Speedup != 0.5 || rows[0].Efficiency != nil {
		t.Errorf("rows: %+v %+v", rows[0], rows[2])
	}
	none := []Row{{Workers: 2, ThroughputPerS: 18}}
	speedups(none)
	if none[0].Speedup != nil {
		t.Error("speed-up without a 1-worker row")
	}
}

func TestTableAndJSON(t *testing.T) {
	v, one := 12.5, 1.0
	ok := true
	r := Result{Scenario: "count", GOMAXPROCS: 2, NumCPU: 2, DurationS: 5, Columns: []string{"batch_wall_ms"}, Rows: []Row{
		{Workers: 1, ThroughputPerS: 16, Extra: map[string]*float64{"batch_wall_ms": &v}, CPUSeconds: 5, CPUPerWall: &one, AnswerOK: &ok, Balanced: true,
			Size: session.SizeJSON{Workers: 1, HeldS: 5, ThroughputPerS: 16, HeadlineP99MS: &v, CPUPerWall: &one}},
		{Workers: 2, ThroughputPerS: 30, Balanced: false, Size: session.SizeJSON{Workers: 2, HeldS: 5, ThroughputPerS: 30}},
	}}
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"GOMAXPROCS 2, NumCPU 2, CPU limit none", "size", "held", "batch wall p99 ms", "tasks/s", "batch_wall_ms", "12.5", "n/a", "counts off!",
		" *     1      5s", "best: lowest batch wall p99 -> 1 worker (12.5 ms)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
}

// TestRunCount sweeps a tiny count run for real: every row balanced, the
// answer right, and more throughput at 2 workers than at 0 (inline).
func TestRunCount(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs")
	}
	var progress bytes.Buffer
	res, err := Run(context.Background(), Config{
		Base:     session.Config{Scenario: "count", Scale: 0.01, Interval: 50 * time.Millisecond},
		Workers:  []int{0, 1, 2},
		Duration: 1500 * time.Millisecond,
	}, &progress)
	if err != nil || res.Interrupted {
		t.Fatalf("%v, interrupted %v", err, res.Interrupted)
	}
	if strings.Count(progress.String(), "\n") != 3 {
		t.Errorf("progress:\n%s", progress.String())
	}
	for _, r := range res.Rows {
		if !r.Balanced || r.AnswerOK == nil || !*r.AnswerOK || r.ThroughputPerS <= 0 || r.Extra["batch_wall_ms"] == nil {
			t.Errorf("row %+v", r)
		}
	}
	if res.Rows[1].Speedup == nil || *res.Rows[1].Speedup != 1 {
		t.Errorf("1-worker speed-up %v", res.Rows[1].Speedup)
	}
}

// TestStoppedBeforeARowHasEmptyRows: a sweep stopped before its first
// row gives rows [] in JSON, not null, and the machine line.
func TestStoppedBeforeARowHasEmptyRows(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, Config{Base: session.Config{Scenario: "count", Scale: 0.05, Interval: 50 * time.Millisecond},
		Workers: []int{1}, Duration: time.Second}, io.Discard)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run on a cancelled context: %v", err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"rows":[]`)) || res.GOMAXPROCS == 0 || !bytes.Contains(b, []byte(`"interrupted":true`)) {
		t.Errorf("JSON %s", b)
	}
	// A sweep stopped before a row says so in its table too, not in
	// dashboard words.
	var tb bytes.Buffer
	if err := res.Write(&tb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tb.String(), "best: lowest batch wall p99 (no size with a headline figure)") || strings.Contains(tb.String(), "live") {
		t.Errorf("table:\n%s", tb.String())
	}
}

// TestMachineLineSaysQuietOrBusy: the machine line names the run delay
// read before and after, and says BUSY, with the load, when either is
// above runq.MaxRunDelay.
func TestMachineLineSaysQuietOrBusy(t *testing.T) {
	quiet := runq.Reading{RunDelay: 0.01, Threads: 2, Wall: MachineCheck, LoadAvg: 0.5}
	busy := runq.Reading{RunDelay: 0.66, Threads: 2, Wall: MachineCheck, LoadAvg: 5.6}
	m := Machine{}
	m.record(quiet, false)
	m.record(quiet, true)
	if got, want := m.Line(), "machine: quiet (spinning threads waited for a CPU 1% before the runs, 1% after; busy above 10%)"; got != want {
		t.Errorf("quiet:\n got %q\nwant %q", got, want)
	}
	m = Machine{}
	m.record(quiet, false)
	m.record(busy, true)
	if got, want := m.Line(), "machine: BUSY (spinning threads waited for a CPU 1% before the runs, 66% after; load average 0.50, 5.60; busy above 10%): every figure here measures the neighbours too"; got != want {
		t.Errorf("busy after:\n got %q\nwant %q", got, want)
	}
	if !m.Busy || m.RunDelayAfter == nil || *m.RunDelayAfter != 0.66 || m.Limit != runq.MaxRunDelay {
		t.Errorf("JSON fields: %+v", m)
	}
	m = Machine{}
	m.record(busy, false) // stopped before the second check
	if got := m.Line(); !strings.Contains(got, "BUSY") || strings.Contains(got, "after") || m.RunDelayAfter != nil {
		t.Errorf("stopped sweep: %q, after %v", got, m.RunDelayAfter)
	}
}

// TestTableKeysDropTwins: the table leaves out the headline's own readout
// and, unless a row ran several Loops, the worst Loop's p99 (each repeats
// a column already printed); the JSON keeps every key.
func TestTableKeysDropTwins(t *testing.T) {
	cols := []string{"ping_p99_ms", "fast_rps", "fast_p99_ms", "slow_rps", "loop_worst_p99_ms"}
	r := Result{Scenario: "server", Columns: cols, Rows: []Row{{Workers: 1}}}
	if got, want := r.tableKeys(), []string{"fast_rps", "fast_p99_ms", "slow_rps"}; !slices.Equal(got, want) {
		t.Errorf("one Loop: %v, want %v", got, want)
	}
	r.Rows = append(r.Rows, Row{Workers: 0, Loops: 2})
	if got, want := r.tableKeys(), []string{"fast_rps", "fast_p99_ms", "slow_rps", "loop_worst_p99_ms"}; !slices.Equal(got, want) {
		t.Errorf("two Loops: %v, want %v", got, want)
	}
	if !slices.Equal(r.Columns, cols) {
		t.Errorf("tableKeys changed Columns: %v", r.Columns)
	}
	io := Result{Scenario: "io", Columns: []string{"capacity_per_s", "request_p99_ms"}}
	if got := io.tableKeys(); !slices.Equal(got, []string{"capacity_per_s"}) {
		t.Errorf("io: %v", got)
	}
}

// signalWriter closes wrote at its first Write: Run has printed a run's
// progress line and is about to start that run's session.
type signalWriter struct {
	wrote chan struct{}
	once  sync.Once
}

func (w *signalWriter) Write(b []byte) (int, error) {
	w.once.Do(func() { close(w.wrote) })
	return len(b), nil
}

// TestRunStopsInEveryPhase: a sweep whose load is the largest int (one
// Load action, which the scenario saturates) stopped while its session
// starts and takes the load, during the warm-up and during the
// measurement returns context.Canceled within stopNotWaiting of the stop;
// one left alone at the smallest int finishes its row. The 2 s bound is judged over the binary
// in the shape tier (cmd/offtop TestShapeStopsWithin2s).
func TestRunStopsInEveryPhase(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs")
	}
	const stopNotWaiting = 8 * time.Second
	c := Config{Base: session.Config{Scenario: "count", Scale: 0.05, Interval: 50 * time.Millisecond},
		Workers: []int{1}, Duration: 2 * time.Second, Warmup: 500 * time.Millisecond, Load: math.MaxInt}
	for _, phase := range []struct {
		name  string
		after time.Duration // after the progress line
	}{{"setup", 0}, {"warm-up", 250 * time.Millisecond}, {"measuring", 1500 * time.Millisecond}} {
		t.Run(phase.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w := &signalWriter{wrote: make(chan struct{})}
			type result struct {
				res Result
				err error
			}
			got := make(chan result, 1)
			go func() {
				res, err := Run(ctx, c, w)
				got <- result{res, err}
			}()
			<-w.wrote
			time.Sleep(phase.after) // where in the run the stop comes, not a timing assertion
			cancel()
			select {
			case r := <-got:
				if !errors.Is(r.err, context.Canceled) || !r.res.Interrupted {
					t.Errorf("Run: %v, interrupted %v; want context.Canceled", r.err, r.res.Interrupted)
				}
			case <-time.After(stopNotWaiting):
				t.Fatalf("Run has not returned %v after the stop", stopNotWaiting)
			}
		})
	}
	t.Run("to the end", func(t *testing.T) {
		c := c
		c.Load = math.MinInt // 1 job a batch: a first answer at once, however busy the machine
		got := make(chan error, 1)
		var res Result
		go func() {
			var err error
			res, err = Run(context.Background(), c, io.Discard)
			got <- err
		}()
		select {
		case err := <-got:
			if err != nil || len(res.Rows) != 1 || !res.Rows[0].Balanced || res.Load != math.MinInt {
				t.Errorf("Run: %v, rows %+v, load %d", err, res.Rows, res.Load)
			}
		case <-time.After(maxWarmup + c.Duration + stopNotWaiting):
			t.Fatal("a sweep of one 2s run has not finished")
		}
	})
}

// TestAddSatSaturates: a run's window, its duration plus the warm-up,
// stops at time.Duration's limit instead of wrapping negative.
func TestAddSatSaturates(t *testing.T) {
	for _, tc := range []struct{ a, b, want time.Duration }{
		{5 * time.Second, time.Second, 6 * time.Second},
		{math.MaxInt64, 2 * time.Second, math.MaxInt64},
		{math.MaxInt64 - 1, 1, math.MaxInt64},
		{math.MaxInt64 - 1, 2, math.MaxInt64},
	} {
		if got := addSat(tc.a, tc.b); got != tc.want {
			t.Errorf("addSat(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestWarmupWithoutAnswerIsSaid: a run whose first answer does not come
// within maxWarmup (count at 256 jobs a batch on 1 worker: seconds a
// batch) says so on the progress lines and is measured anyway.
func TestWarmupWithoutAnswerIsSaid(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs")
	}
	defer func(d time.Duration) { maxWarmup = d }(maxWarmup)
	maxWarmup = 300 * time.Millisecond
	var progress bytes.Buffer
	res, err := Run(context.Background(), Config{Base: session.Config{Scenario: "count", Scale: 1, Interval: 50 * time.Millisecond},
		Workers: []int{1}, Duration: time.Second, Warmup: 100 * time.Millisecond, Load: 100}, &progress)
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("%v, %d rows, want 1", err, len(res.Rows))
	}
	if !strings.Contains(progress.String(), "no answer yet after a warm-up of 300ms") {
		t.Errorf("progress does not say the warm-up ended without an answer:\n%s", progress.String())
	}
}

// TestRunPriorityAddsRows: with Priority every size runs twice, plain then
// on priority workers, the rows named and marked so.
func TestRunPriorityAddsRows(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs")
	}
	var progress bytes.Buffer
	res, err := Run(context.Background(), Config{
		Base:     session.Config{Scenario: "count", Scale: 0.05, Interval: 50 * time.Millisecond},
		Workers:  []int{1, 2},
		Duration: 600 * time.Millisecond,
		Priority: true,
	}, &progress)
	if err != nil || res.Interrupted {
		t.Fatalf("%v, interrupted %v", err, res.Interrupted)
	}
	var got []string
	for _, r := range res.Rows {
		got = append(got, fmt.Sprintf("%d %s %v", r.Workers, r.Name, r.Priority))
		// Not its throughput: on a busy machine nice-19 workers may
		// complete nothing in 600 ms.
		if !r.Balanced || r.Size.Priority != r.Priority {
			t.Errorf("row %+v", r)
		}
	}
	if res.GOMAXPROCS != runtime.GOMAXPROCS(0) {
		t.Errorf("GOMAXPROCS %d, want %d: the Ps priority workers add left out", res.GOMAXPROCS, runtime.GOMAXPROCS(0))
	}
	if want := []string{"1 plain false", "1 priority true", "2 plain false", "2 priority true"}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q\n%s", got, want, progress.String())
	}
}

// TestSpeedupsPerDispatch: plain, priority and per-task rows each compare
// with their own 1-worker row, whatever order they come in.
func TestSpeedupsPerDispatch(t *testing.T) {
	rows := []Row{
		{Workers: 1, ThroughputPerS: 10}, {Workers: 1, ThroughputPerS: 20, Priority: true}, {Workers: 1, ThroughputPerS: 40, PerTask: true},
		{Workers: 2, ThroughputPerS: 15}, {Workers: 2, ThroughputPerS: 30, Priority: true}, {Workers: 2, ThroughputPerS: 60, PerTask: true},
	}
	speedups(rows)
	for _, r := range rows[3:] {
		if r.Speedup == nil || *r.Speedup != 1.5 {
			t.Errorf("%+v: speed-up %v, want 1.5 against its own 1-worker row", r, r.Speedup)
		}
	}
}

// TestHdrStemsApart: every configuration of a --per-task --priority sweep
// logs to a file of its own.
func TestHdrStemsApart(t *testing.T) {
	seen := map[string]string{}
	for _, name := range []string{"pool", "per-task", "pool+priority", "per-task+priority"} {
		r := Row{Name: name, Workers: 2, PerTask: strings.HasPrefix(name, "per-task"), Priority: strings.HasSuffix(name, "+priority")}
		stem := hdrStem(r)
		if other, ok := seen[stem]; ok {
			t.Errorf("%s and %s both log to %s", other, name, stem)
		}
		seen[stem] = name
	}
}
