// Package sweep runs one scenario at several pool sizes in turn, each on a
// fresh session, and tabulates what each size did: the tables of seed 000
// s3, seed 001 and seed 002 (docs/seeds.md), measured by offtop.
package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/offtop/offtop/internal/decimal"
	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/report"
	"github.com/offtop/offtop/internal/runq"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sizing"
)

// Config says what to sweep. Base is the session config every run starts
// from; its Workers and Window are set per run.
type Config struct {
	Base     session.Config
	Workers  []int         // pool sizes, in the order run
	Duration time.Duration // measured time per size, after Warmup
	// Warmup runs before each measurement and is then reset away: servers
	// start, the first batch fills the pool. 0 means Duration/5, at most 2s.
	// It lasts until the scenario's first answer in any case.
	Warmup time.Duration
	// Loops, when set, sweeps server's Loops too: every pool size at each
	// count of Loops, rows named by SeedName.
	Loops []int
	// PerTask, when set, runs every row twice: on the pool, then with a
	// goroutine per task (session.Config.PerTask), named pool and per-task.
	PerTask bool
	// Priority, when set, runs every row twice: plain workers, then
	// priority workers (session.Config.Priority), named plain and
	// priority (with PerTask or Loops, the name gains "+priority").
	Priority bool
	// Repeat runs every size that many times, interleaved (Schedule);
	// 0 means 1. Each row is then the median of its runs (combine).
	Repeat int
	// Load is the load step every run starts at: that many ] presses
	// (negative: [) applied as one Load action right after the session
	// starts; past the scenario's last level it stays there.
	Load int
	// Fit fits the USL over the runs and picks a size (sizing.Recommend).
	Fit bool
	// HdrLog, when set, is a directory to write each size's histograms to
	// (hdrlog.go).
	HdrLog string
	// CheckMachine measures whether other work shares the CPUs just before
	// the first run and just after the last (runq.Measure for
	// MachineCheck each, which costs that long of every core), so the
	// table says when its figures measured the neighbours too.
	CheckMachine bool
	// Attach, when set, sweeps an attached program instead of a scenario
	// (attach.go): Workers, Duration, Warmup, Repeat and CheckMachine
	// apply; the rest, Base included, do not. Fit is implied: the latency
	// rule picks by the target's client p99.
	Attach *Attached
}

// MachineCheck is how long each of a sweep's two machine checks spins.
const MachineCheck = 300 * time.Millisecond

// Machine is what a sweep read of the machine before its first run and
// after its last (Config.CheckMachine): the run delay of threads spinning
// on every CPU (runq). A share above runq.MaxRunDelay means other work
// competed for the cores, and every figure of the table moves with it.
type Machine struct {
	// RunDelayBefore and RunDelayAfter are shares 0..1; After is null for
	// a sweep stopped before it could measure again.
	RunDelayBefore float64  `json:"run_delay_before"`
	RunDelayAfter  *float64 `json:"run_delay_after"`
	// Limit is runq.MaxRunDelay; Busy says either reading was above it.
	Limit float64 `json:"run_delay_limit"`
	Busy  bool    `json:"busy"`
	// before and after are the readings, for Line.
	before, after *runq.Reading
}

// check reads the machine into m: before the runs, or after them.
func (m *Machine) check(after bool) {
	if r, ok := runq.Measure(MachineCheck); ok {
		m.record(r, after)
	}
}

// record files r as the reading before the runs or after them.
func (m *Machine) record(r runq.Reading, after bool) {
	if after {
		m.after, m.RunDelayAfter = &r, &r.RunDelay
	} else {
		m.before, m.RunDelayBefore = &r, r.RunDelay
	}
	m.Limit = runq.MaxRunDelay
	m.Busy = m.Busy || r.Busy()
}

// Line is the machine's one line under the table, such as "machine: quiet
// (spinning threads waited for a CPU 1% before the runs, 2% after; busy
// above 10%)" or "machine: BUSY (spinning threads waited for a CPU 66%
// before the runs, 76% after; load average 5.60, 7.45; busy above 10%):
// every figure here measures the neighbours too".
func (m *Machine) Line() string {
	var waits, loads []string
	for _, x := range []struct {
		when string
		r    *runq.Reading
	}{{"before the runs", m.before}, {"after", m.after}} {
		if x.r == nil {
			continue
		}
		waits = append(waits, fmt.Sprintf("%.0f%% %s", 100*x.r.RunDelay, x.when))
		if x.r.LoadAvg >= 0 {
			loads = append(loads, fmt.Sprintf("%.2f", x.r.LoadAvg))
		}
	}
	if len(waits) == 0 {
		return "machine: not measured (no /proc/thread-self/schedstat)"
	}
	what := fmt.Sprintf("spinning threads waited for a CPU %s", strings.Join(waits, ", "))
	if !m.Busy {
		return fmt.Sprintf("machine: quiet (%s; busy above %.0f%%)", what, 100*runq.MaxRunDelay)
	}
	if len(loads) > 0 {
		what += "; load average " + strings.Join(loads, ", ")
	}
	return fmt.Sprintf("machine: BUSY (%s; busy above %.0f%%): every figure here measures the neighbours too", what, 100*runq.MaxRunDelay)
}

// SeedName is the name seed 001 gives a configuration: plain (1 Loop, no
// pool), cluster (Loops, no pool), worker_threads (1 Loop and a pool),
// both.
func SeedName(loops, workers int) string {
	switch {
	case loops <= 1 && workers == 0:
		return "plain"
	case workers == 0:
		return "cluster"
	case loops <= 1:
		return "worker_threads"
	default:
		return "both"
	}
}

// ParseLoops reads a comma-separated list of Loop counts, each
// 1..scenarios.MaxLoops, no duplicates.
func ParseLoops(s string) ([]int, error) {
	return parseList(s, 1, scenarios.MaxLoops, ErrLoops, "a count")
}

// ErrLoops is returned by ParseLoops for a malformed list.
var ErrLoops = errors.New("bad loops list")

// ErrWorkers is returned by ParseWorkers for a malformed list.
var ErrWorkers = errors.New("bad workers list")

// ParseWorkers reads a comma-separated list of pool sizes such as
// "0,1,2,4,8": each 0..session.MaxWorkers, at least one, no duplicates.
func ParseWorkers(s string) ([]int, error) {
	return parseList(s, 0, session.MaxWorkers, ErrWorkers, "a size")
}

// parseList reads a comma-separated list of distinct numbers lo..hi, each
// read by decimal.Int (spaces around trimmed, no base prefixes: as
// offtop's own int flags); errors wrap bad and call a number what ("a
// size twice"). The reason comes first; the item is named only when the
// list has several.
func parseList(s string, lo, hi int, bad error, what string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty", bad)
	}
	fields := strings.Split(s, ",")
	item := func(f string) string {
		if len(fields) == 1 {
			return ""
		}
		return fmt.Sprintf(" (item %.40q)", f)
	}
	var out []int
	seen := map[int]bool{}
	for _, f := range fields {
		n, err := decimal.Int(f)
		switch {
		case strings.TrimSpace(f) == "":
			return nil, fmt.Errorf("%w: an empty item", bad)
		case errors.Is(err, decimal.ErrRange) || (err == nil && (n < lo || n > hi)):
			return nil, fmt.Errorf("%w: out of range %d..%d%s", bad, lo, hi, item(f))
		case err != nil:
			return nil, fmt.Errorf("%w: not a whole number%s", bad, item(f))
		case seen[n]:
			return nil, fmt.Errorf("%w: %s twice: %d", bad, what, n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// Row is one pool size's results. Pointers are nil where a figure does not
// apply or has no data (JSON null, "n/a" in the table).
type Row struct {
	// Name is the row's name when the sweep compares configurations
	// (SeedName's plain, cluster, worker_threads, both; pool, per-task).
	Name    string `json:"name,omitempty"`
	Loops   int    `json:"loops,omitempty"`
	PerTask bool   `json:"per_task,omitempty"`
	// Priority: the row ran on priority workers (Config.Priority).
	Priority bool `json:"priority,omitempty"`
	Workers  int  `json:"workers"`
	// ThroughputPerS is pool tasks completed per second over the run.
	ThroughputPerS float64 `json:"throughput_per_s"`
	// CPUSeconds is process CPU time over the measured run; CPUPerWall is
	// that over the run's wall time (1 = one core busy).
	CPUSeconds float64 `json:"cpu_seconds"`
	CPUPerWall float64 `json:"cpu_per_wall"`
	// Speedup is throughput over the 1-worker row's; Efficiency is
	// Speedup / workers. nil without a 1-worker row, or at 0 workers.
	Speedup    *float64 `json:"speedup"`
	Efficiency *float64 `json:"efficiency"`
	// ProbeP99MS is the Loop probe's corrected p99 over the run; TaskP99MS
	// the pool tasks' submit-to-end p99.
	ProbeP99MS *float64 `json:"probe_p99_ms"`
	TaskP99MS  *float64 `json:"task_p99_ms"`
	// RSSMB is resident memory at the end of the run in MiB (2^20 bytes;
	// the JSON name rss_mb is the schema's).
	RSSMB *float64 `json:"rss_mb"`
	// Extra holds the scenario's headline readouts at the end of the run
	// (scenarios.SweepKeys: /ping p99 for server, wall per batch for count
	// and per mode for breakeven), keyed as in the headless JSON.
	Extra map[string]*float64 `json:"extra"`
	// AnswerOK is the scenario's answer_ok at the end (nil: no answer yet).
	AnswerOK *bool `json:"answer_ok"`
	// Size is the session's own row for this size over the measured run
	// (session.SizeRow): the figures above that it has come from it, and
	// the table prints it through internal/report, as the live panel and
	// the exit summary do.
	Size session.SizeJSON `json:"size"`
	// Balanced reports that submitted = completed + failed + timed out +
	// running + queued held at every sample of the run.
	Balanced bool `json:"balanced"`
	// ArrivalPerS is pool tasks submitted per second over the run;
	// ServiceMS the mean time a task held a worker: the mean number of
	// busy workers over the throughput (Little's law read backwards).
	ArrivalPerS float64  `json:"arrival_per_s"`
	ServiceMS   *float64 `json:"service_ms"`
	// Repeats is how many runs the row combines; every figure above is
	// their median, Spread each figure's median, min and max (keyed as in
	// this JSON, extra figures as extra.KEY), Flags the figures whose
	// spread (max - min) / median exceeds 10%.
	Repeats int              `json:"repeats"`
	Spread  map[string]Range `json:"spread"`
	Flags   []string         `json:"flags"`
	// lo and hi are the rows of minima and maxima the table prints (nil
	// for a single run).
	lo, hi *Row
}

// Result is a whole sweep.
type Result struct {
	Scenario   string   `json:"scenario"`
	Columns    []string `json:"columns"` // the keys of every row's Extra, in table order
	GOMAXPROCS int      `json:"gomaxprocs"`
	NumCPU     int      `json:"num_cpu"`
	CPULimit   *float64 `json:"cpu_limit"`
	DurationS  float64  `json:"duration_s"`
	Repeat     int      `json:"repeat"`
	Load       int      `json:"load"`
	Rows       []Row    `json:"rows"`
	// Fit is the USL over every run and the size picked (--fit), null
	// without --fit.
	Fit *sizing.Fit `json:"fit"`
	// Machine is the machine check (Config.CheckMachine), null without.
	Machine *Machine `json:"machine"`
	// Attach is the attached program swept (Config.Attach); null for a
	// scenario's sweep.
	Attach *AttachJSON `json:"attach"`
	// HdrLogMissing is the --hdr-log files a write failed for, each
	// removed and not written again, with the first error; nil when every
	// log was written (or none asked for).
	HdrLogMissing []MissingLog `json:"hdr_log_missing"`
	// Interrupted: ctx ended the sweep before its last run; Rows are the
	// sizes with a finished run, each of the runs it finished.
	Interrupted bool          `json:"interrupted"`
	Took        time.Duration `json:"-"`
	// runs are every run of each row, in row order.
	runs [][]Row
	// logs are the HDR logs' content so far, by path.
	logs map[string][]byte
}

// MissingLog is an HDR log a sweep could not write.
type MissingLog struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Run sweeps c.Workers in order, printing one progress line per size to
// progress. It stops early, returning what it has and ctx's error, when ctx
// is done.
func Run(ctx context.Context, c Config, progress io.Writer) (Result, error) {
	if len(c.Workers) == 0 {
		return Result{}, fmt.Errorf("%w: empty", ErrWorkers)
	}
	if c.Duration <= 0 {
		return Result{}, fmt.Errorf("sweep: duration %v must be > 0", c.Duration)
	}
	warm := c.Warmup
	if warm == 0 {
		warm = min(c.Duration/5, 2*time.Second)
	}
	start := time.Now()
	k := max(c.Repeat, 1)
	// The machine line is right even if no row is measured (a sweep
	// stopped at once); the first row's snapshot then sets it. Rows is
	// never nil: a sweep stopped before its first row has "rows": [].
	res := Result{Scenario: c.Base.Scenario, DurationS: c.Duration.Seconds(), Rows: []Row{},
		Columns:    scenarios.SweepKeys(c.Base.Scenario),
		GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(),
		Repeat: k, Load: c.Load}
	type conf struct {
		loops, workers    int
		perTask, priority bool
	}
	var confs []conf
	loops := c.Loops
	if len(loops) == 0 {
		loops = []int{0} // the base's
	}
	modes := []bool{c.Base.PerTask}
	if c.PerTask {
		modes = []bool{false, true}
	}
	prios := []bool{c.Base.Priority}
	if c.Priority {
		prios = []bool{false, true}
	}
	for _, n := range c.Workers { // SeedName's order: plain, cluster, worker_threads, both
		for _, l := range loops {
			for _, pt := range modes {
				for _, pr := range prios {
					confs = append(confs, conf{l, n, pt, pr})
				}
			}
		}
	}
	res.runs = make([][]Row, len(confs))
	order := Schedule(len(confs), k)
	if c.CheckMachine {
		res.Machine = &Machine{}
		res.Machine.check(false)
	}
	var err error
	if c.Attach != nil {
		err = runAttached(ctx, c, warm, progress, &res)
		order = nil
		confs = confs[:len(c.Workers)] // one configuration a size: runAttached's rows
	}
	for j, i := range order {
		cf := confs[i]
		base := c.Base
		label := sizing.SizeName(cf.workers) // "inline", "1 worker", "2 workers"
		if cf.loops > 0 {
			base.Scenarios.ServerLoops = cf.loops
			label = fmt.Sprintf("%d Loops, %s", cf.loops, label)
		}
		base.PerTask, base.Priority = cf.perTask, cf.priority
		if c.PerTask {
			label += map[bool]string{false: ", pool", true: ", per-task"}[cf.perTask]
		}
		if c.Priority {
			label += map[bool]string{false: ", plain", true: ", priority"}[cf.priority]
		}
		fmt.Fprintf(progress, "sweep: %s at %s (run %d/%d, repeat %d/%d), %v after a warm-up of at least %v\n",
			res.Scenario, label, j+1, len(order), j/len(confs)+1, k, c.Duration, warm)
		var row Row
		var snap session.Snapshot
		var h histograms
		row, snap, h, err = runOne(ctx, c, base, cf.workers, warm, res.Columns, progress)
		if err != nil {
			break
		}
		row.Loops, row.PerTask, row.Priority = cf.loops, cf.perTask, cf.priority
		switch {
		case cf.loops > 0:
			row.Name = SeedName(cf.loops, cf.workers)
		case c.PerTask && cf.perTask:
			row.Name = "per-task"
		case c.PerTask:
			row.Name = "pool"
		}
		switch {
		case c.Priority && row.Name == "":
			row.Name = map[bool]string{false: "plain", true: "priority"}[cf.priority]
		case c.Priority && cf.priority:
			row.Name += "+priority"
		}
		res.Scenario, res.GOMAXPROCS, res.NumCPU = snap.Scenario, snap.GOMAXPROCS, snap.NumCPU
		if cf.priority { // without the Ps priority workers added
			res.GOMAXPROCS = row.Size.GOMAXPROCS
		}
		if snap.CPULimit > 0 {
			v := float64(snap.CPULimit)
			res.CPULimit = &v
		}
		res.runs[i] = append(res.runs[i], row)
		if c.HdrLog != "" {
			res.logRun(c.HdrLog, row, len(res.runs[i]), h)
		}
	}
	// Rows so far, a stopped sweep's too: each configuration with a run.
	for i := range confs {
		if len(res.runs[i]) > 0 {
			res.Rows = append(res.Rows, combine(res.runs[i], res.Columns))
		}
	}
	res.runs = slices.DeleteFunc(res.runs, func(r []Row) bool { return len(r) == 0 })
	if res.Machine != nil && ctx.Err() == nil {
		res.Machine.check(true)
	}
	speedups(res.Rows)
	if (c.Fit || c.Attach != nil) && err == nil {
		var obs []sizing.Obs
		for _, runs := range res.runs {
			for _, r := range runs {
				obs = append(obs, r.obs())
			}
		}
		rule := scenarios.Sizing(res.Scenario).Rule
		if c.Attach != nil {
			rule = scenarios.RuleLatency // the target's p99, with the program's Loop responsive
		}
		f := sizing.Recommend(rule, obs)
		res.Fit = &f
	}
	res.Interrupted = err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err())
	res.Took = time.Since(start)
	return res, err
}

// logRun writes run n of row's configuration to its HDR log, the whole
// file anew (writeHdrLog). A failed write removes the log this sweep
// wrote there and files it in HdrLogMissing; a missing log is not
// written again (its later runs would lack the header).
func (res *Result) logRun(dir string, row Row, n int, h histograms) {
	stem := hdrStem(row)
	path := HdrLogPath(dir, res.Scenario, stem)
	if slices.ContainsFunc(res.HdrLogMissing, func(m MissingLog) bool { return m.Path == path }) {
		return
	}
	if res.logs == nil {
		res.logs = map[string][]byte{}
	}
	data, err := writeHdrLog(dir, res.Scenario, stem, res.logs[path], n, h)
	if err != nil {
		if _, wrote := res.logs[path]; wrote {
			if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode().IsRegular() {
				_ = os.Remove(path)
			}
		}
		delete(res.logs, path)
		why := strings.TrimPrefix(err.Error(), "--hdr-log: ")
		why = strings.TrimPrefix(strings.TrimPrefix(why, "write "), path+": ")
		res.HdrLogMissing = append(res.HdrLogMissing, MissingLog{Path: path, Error: why})
		return
	}
	res.logs[path] = data
}

// runOne measures one pool size on a fresh session of base, started at
// c.Load. A warm-up cut at maxWarmup without the scenario's first answer
// is said on progress.
func runOne(ctx context.Context, c Config, base session.Config, workers int, warm time.Duration, cols []string, progress io.Writer) (Row, session.Snapshot, histograms, error) {
	d := c.Duration
	cfg := base
	cfg.Workers = workers
	cfg.Window = addSat(d, warm) // the window covers the whole run; Reset trims it
	s, err := session.New(cfg)
	if err != nil {
		return Row{}, session.Snapshot{}, histograms{}, err
	}
	defer s.Close()
	if c.Load != 0 { // one action however many steps: the scenario saturates at its ends
		if err := s.Apply(session.Action{Kind: session.Load, N: c.Load}); err != nil {
			return Row{}, session.Snapshot{}, histograms{}, err
		}
	}
	row := Row{Workers: workers, Balanced: true}
	check := func(snap session.Snapshot) {
		if !snap.Balanced() {
			row.Balanced = false
		}
	}
	var last session.Snapshot
	// Warm up for at least warm and until the scenario has its first
	// answer (servers up, a first batch through), at most maxWarmup.
	minWarm, maxWarm := time.After(warm), time.After(maxWarmup)
	warmed, answered := false, false
	for !(warmed && answered) {
		select {
		case <-ctx.Done():
			return row, last, histograms{}, ctx.Err()
		case snap := <-s.Samples():
			check(snap)
			answered = answered || hasAnswer(snap)
		case <-minWarm:
			warmed = true
		case <-maxWarm:
			if !answered {
				fmt.Fprintf(progress, "sweep: no answer yet after a warm-up of %v (a batch at this size and load takes longer): measuring anyway\n", maxWarmup)
			}
			warmed, answered = true, true
		}
	}
	if err := s.Apply(session.Action{Kind: session.Reset}); err != nil {
		return row, last, histograms{}, err
	}
	t0 := time.Now()
	end := time.After(d)
	var m sizing.Meter
	for measuring := true; measuring; {
		select {
		case <-ctx.Done():
			return row, last, histograms{}, ctx.Err()
		case snap := <-s.Samples():
			check(snap)
			m.Add(time.Duration(snap.Elapsed), snap.Submitted, snap.WorkerBusy)
			last = snap
		case <-end:
			measuring = false
		}
	}
	// The size row and the histograms its log gets are one read, at the
	// end of the run; the readouts are the last sample's.
	size, probe, headline, task := s.SizeRead()
	h := histograms{probe: probe, headline: headline, task: task, start: t0, end: time.Now()}
	fill(&row, last, size, task, cols)
	row.ArrivalPerS, row.ServiceMS = m.ArrivalPerS(), ptr(m.ServiceMS(row.ThroughputPerS))
	return row, last, h, nil
}

// addSat is a+b for a, b >= 0, at most math.MaxInt64 ns.
func addSat(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// maxWarmup bounds the wait for a scenario's first answer; a variable
// for tests.
var maxWarmup = 30 * time.Second

// hasAnswer reports whether the scenario's answer_ok is known.
func hasAnswer(s session.Snapshot) bool {
	for _, r := range s.Readouts {
		if r.Key == "answer_ok" {
			return r.Known
		}
	}
	return true // a scenario without an answer has nothing to wait for
}

// fill computes a row from the end of a measured run: size, the size row
// the session kept since the reset that began it, task, the pool tasks'
// histogram since then (ns), and the scenario's readouts at the last
// sample.
func fill(row *Row, last session.Snapshot, size session.SizeRow, task *hdr.Histogram, cols []string) {
	row.Size = size.JSON()
	row.Size.Current = false // a sweep has no size in force
	row.ThroughputPerS = row.Size.ThroughputPerS
	if v := row.Size.CPUPerWall; v != nil {
		row.CPUPerWall = *v
		row.CPUSeconds = *v * row.Size.HeldS
	}
	row.ProbeP99MS = row.Size.ProbeP99MS
	ts := hist.Summarize(task)
	row.TaskP99MS = p99(ts.Count, ts.P99)
	if last.RSSBytes >= 0 {
		v := last.RSSBytes.MiB()
		row.RSSMB = &v
	}
	row.Extra = map[string]*float64{}
	for _, k := range cols {
		row.Extra[k] = nil
	}
	for _, r := range last.Readouts {
		switch {
		case !r.Known:
		case r.Key == "answer_ok":
			ok := r.Value != 0
			row.AnswerOK = &ok
		case slices.Contains(cols, r.Key):
			row.Extra[r.Key] = ptr(r.Value)
		}
	}
}

// speedups fills Speedup and Efficiency against the 1-worker row of the
// same dispatch (pool or per-task, plain or priority workers; with
// --loops, the last such row); a dispatch with no 1-worker row gets none.
func speedups(rows []Row) {
	type dispatch struct{ perTask, priority bool }
	ref := map[dispatch]float64{}
	for _, r := range rows {
		if r.Workers == 1 {
			ref[dispatch{r.PerTask, r.Priority}] = r.ThroughputPerS
		}
	}
	for i := range rows {
		one := ref[dispatch{rows[i].PerTask, rows[i].Priority}]
		if one <= 0 {
			continue
		}
		sp := rows[i].ThroughputPerS / one
		rows[i].Speedup = ptr(sp)
		if rows[i].Workers > 0 {
			rows[i].Efficiency = ptr(sp / float64(rows[i].Workers))
		}
	}
}

func p99(count int64, d time.Duration) *float64 {
	if count == 0 {
		return nil
	}
	return ptr(float64(d) / float64(time.Millisecond))
}

func ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Write prints r as a table: a first line naming GOMAXPROCS, NumCPU and
// any CPU limit, the size table of internal/report (the live panel's
// columns) with the sweep's own after them, one row per pool size, and
// the best size by the scenario's rule. With repeats every figure is the
// median of the runs with their min-max after it, and a row whose
// throughput or headline spreads over 10% says so in its last column.
// With a fit, the model, its verdict and the recommended size follow, and
// the recommended row is marked R.
func (r Result) Write(w io.Writer) error {
	limit := "none"
	if r.CPULimit != nil {
		limit = strconv.FormatFloat(*r.CPULimit, 'g', 3, 64) + " CPUs"
	}
	runs := ""
	if r.Repeat > 1 {
		runs = fmt.Sprintf(", %d runs each, interleaved: median (min-max)", r.Repeat)
		if slices.ContainsFunc(r.Rows, func(row Row) bool { return row.Repeats < r.Repeat }) {
			runs = fmt.Sprintf(", up to %d runs each (stopped early), interleaved: median (min-max)", r.Repeat)
		}
	}
	fmt.Fprintf(w, "%s: GOMAXPROCS %d, NumCPU %d, CPU limit %s, %gs per size%s\n",
		r.Scenario, r.GOMAXPROCS, r.NumCPU, limit, r.DurationS, runs)
	if a := r.Attach; a != nil {
		fmt.Fprintf(w, "attached at %s under %s: %s p99 is the client's, from each request's due time; server p99 the middleware's (route %s)\n",
			a.Addr, a.Load, a.Target, cmp.Or(a.Route, "unknown"))
	}
	sizes := make([]session.SizeJSON, len(r.Rows))
	for i, row := range r.Rows {
		sizes[i] = row.Size
		sizes[i].Workers = row.Workers
	}
	t := report.Of(r.Scenario, sizes)
	if r.latencyPick() {
		t = t.WithBest(r.Fit.Recommended) // one pick: the rule's (bestLine)
	}
	col := func(head string, cell func(row Row) string) report.Column {
		return report.Column{Head: head, Cell: func(i int, _ session.SizeJSON) string { return cell(r.Rows[i]) }}
	}
	figure := func(head string, get func(row Row) *float64) report.Column {
		return col(head, func(row Row) string { return rangeCell(row, get) })
	}
	var cols []report.Column
	for ci, c := range t.Columns(false, t.MixedGOMAXPROCS()) {
		if ci > 0 && c.Head != "GOMAXPROCS" && c.Head != "held" {
			c = spannedColumn(c, r.Rows)
		}
		if ci == 0 && r.Fit != nil && r.Fit.Recommended >= 0 {
			c = recommendedColumn(c, r.Rows, r.Fit.Recommended)
		}
		cols = append(cols, c)
	}
	cols = append(cols,
		figure("CPU s", func(row Row) *float64 { return ptr(row.CPUSeconds) }),
		col("speed-up", func(row Row) string { return num(row.Speedup) }),
		col("efficiency", func(row Row) string { return num(row.Efficiency) }),
	)
	if r.Attach == nil { // the agent sends no task histogram
		cols = append(cols, figure("task p99 ms", func(row Row) *float64 { return row.TaskP99MS }))
	}
	cols = append(cols, figure("RSS MiB", func(row Row) *float64 { return row.RSSMB }))
	if scenarios.Sizing(r.Scenario).Rule == scenarios.RuleLittle {
		cols = append(cols,
			figure("arrivals/s", func(row Row) *float64 { return ptr(row.ArrivalPerS) }),
			figure("service ms", func(row Row) *float64 { return row.ServiceMS }))
	}
	if len(r.Rows) > 0 && r.Rows[0].Name != "" { // a comparison: name the rows first
		cols = append([]report.Column{
			col("name", func(row Row) string { return row.Name }),
			col("Loops", func(row Row) string {
				if row.Loops == 0 {
					return "-"
				}
				return strconv.Itoa(row.Loops)
			}),
		}, cols...)
	}
	for _, k := range r.tableKeys() {
		cols = append(cols, figure(r.head(k), func(row Row) *float64 { return row.Extra[k] }))
	}
	cols = append(cols, col("answer", answer))
	if r.Repeat > 1 {
		cols = append(cols, report.Column{Head: "spread", Cell: func(i int, _ session.SizeJSON) string { return flagCell(r.Rows[i]) }})
	}
	lines := t.Render(cols)
	lines = append(lines, r.bestLine(t))
	if a := r.Attach; a != nil && a.Restored {
		lines = append(lines, fmt.Sprintf("pool set back to %s, its size before the sweep", sizing.SizeName(a.StartWorkers)))
	} else if a != nil {
		lines = append(lines, fmt.Sprintf("pool NOT set back to %s, its size before the sweep: %s", sizing.SizeName(a.StartWorkers), a.RestoreError))
	}
	if f := r.Fit; f != nil {
		line := f.Line
		if slices.ContainsFunc(r.Rows, func(row Row) bool { return row.Workers == f.Recommended }) {
			line += " (row R)"
		}
		verdict := "verdict: " + f.Verdict
		if f.Rule != scenarios.RuleKnee.String() { // the model is of throughput; the pick is not
			by := map[string]string{scenarios.RuleLatency.String(): "its headline p99", scenarios.RuleLittle.String(): "Little's law"}[f.Rule]
			verdict = fmt.Sprintf("throughput: %s (%s picks by %s, below)", f.Verdict, r.Scenario, by)
		}
		lines = append(lines, "fit: "+f.ModelLine(), verdict, line)
	}
	if r.Machine != nil {
		lines = append(lines, r.Machine.Line())
	}
	for _, m := range r.HdrLogMissing {
		lines = append(lines, fmt.Sprintf("--hdr-log: %s not written (%s)", m.Path, m.Error))
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, strings.TrimRight(l, " ")); err != nil {
			return err
		}
	}
	return nil
}

// tableKeys are the readout columns the table prints: r.Columns without
// those that repeat a column already there (the JSON keeps them all):
// the headline's own readout ("ping_p99_ms" beside "ping p99 ms", the
// same histogram over the same run), and the worst Loop's p99, which is
// the Loop p99 column's figure unless some row ran several Loops.
func (r Result) tableKeys() []string {
	twin := strings.ReplaceAll(scenarios.Headline(r.Scenario).Name, " ", "_") + "_p99_ms"
	if r.Attach != nil {
		twin = KeyClientP99 // the headline column's figure
	}
	loops := slices.ContainsFunc(r.Rows, func(row Row) bool { return row.Loops > 1 })
	return slices.DeleteFunc(slices.Clone(r.Columns), func(k string) bool {
		return k == twin || (k == "loop_worst_p99_ms" && !loops)
	})
}

// head is the table's heading of Extra key k: the key, or for an
// attached sweep's own keys, words.
func (r Result) head(k string) string {
	if r.Attach == nil {
		return k
	}
	switch k {
	case KeyServerP99:
		return r.Attach.Target + " server p99 ms"
	case KeyErrors:
		return "errors"
	}
	return k
}

// spannedColumn is c with each cell followed by its runs' range.
func spannedColumn(c report.Column, rows []Row) report.Column {
	cell := c.Cell
	c.Width = 0 // the ranges widen it
	c.Cell = func(i int, s session.SizeJSON) string {
		row := rows[i]
		if row.lo == nil {
			return cell(i, s)
		}
		return spanned(cell(i, s), cell(i, row.lo.Size), cell(i, row.hi.Size))
	}
	return c
}

// recommendedColumn is the size column with "R " before the recommended
// size (and two spaces before the others, so sizes stay aligned).
func recommendedColumn(c report.Column, rows []Row, n int) report.Column {
	cell := c.Cell
	c.Width = 0
	c.Cell = func(i int, s session.SizeJSON) string {
		if rows[i].Workers == n {
			return "R " + cell(i, s)
		}
		return cell(i, s)
	}
	return c
}

// num formats a figure with about three significant digits; n/a for nil.
func num(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return report.Figure(*v)
}

func answer(r Row) string {
	s := "n/a"
	if r.AnswerOK != nil {
		s = "wrong"
		if *r.AnswerOK {
			s = "ok"
		}
	}
	if !r.Balanced {
		s += " (counts off!)"
	}
	return s
}
