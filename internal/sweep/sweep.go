// Package sweep runs one scenario at several pool sizes in turn, each on a
// fresh session, and tabulates what each size did: the tables of seed 000
// s3, seed 001 and seed 002 (docs/seeds.md), measured by offtop.
package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/offtop/offtop/internal/hist"
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
		row.CPUPerWall = ptr(*v)
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
