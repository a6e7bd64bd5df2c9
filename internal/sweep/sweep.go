// Package sweep runs one scenario at several pool sizes in turn, each on a
// fresh session, and tabulates what each size did: the table the seed
// write-ups print (seed 000 section 3, seed 001, seed 002), measured here.
package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
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
}

// ErrWorkers is returned by ParseWorkers for a malformed list.
var ErrWorkers = errors.New("bad workers list")

// ParseWorkers reads a comma-separated list of pool sizes such as
// "0,1,2,4,8": each 0..session.MaxWorkers, at least one, no duplicates.
func ParseWorkers(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty", ErrWorkers)
	}
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%w: not a whole number: %.40q", ErrWorkers, f)
		}
		if n < 0 || n > session.MaxWorkers {
			return nil, fmt.Errorf("%w: outside 0..%d: %d", ErrWorkers, session.MaxWorkers, n)
		}
		if seen[n] {
			return nil, fmt.Errorf("%w: a size twice: %d", ErrWorkers, n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// Row is one pool size's results. Pointers are nil where a figure does not
// apply or has no data (JSON null, "n/a" in the table).
type Row struct {
	Workers int `json:"workers"`
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
	RSSMB      *float64 `json:"rss_mb"`
	// Extra holds the scenario's headline readouts at the end of the run
	// (scenarios.SweepKeys: /ping p99 for server, wall per batch for count
	// and per mode for breakeven), keyed as in the headless JSON.
	Extra map[string]*float64 `json:"extra"`
	// AnswerOK is the scenario's answer_ok at the end (nil: no answer yet).
	AnswerOK *bool `json:"answer_ok"`
	// Balanced reports that submitted = completed + failed + timed out +
	// running + queued held at every sample of the run.
	Balanced bool `json:"balanced"`
}

// Result is a whole sweep.
type Result struct {
	Scenario   string        `json:"scenario"`
	Columns    []string      `json:"columns"` // the keys of every row's Extra, in table order
	GOMAXPROCS int           `json:"gomaxprocs"`
	NumCPU     int           `json:"num_cpu"`
	CPULimit   *float64      `json:"cpu_limit"`
	DurationS  float64       `json:"duration_s"`
	Rows       []Row         `json:"rows"`
	Took       time.Duration `json:"-"`
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
	// The machine line is right even if no row is measured (a sweep
	// stopped at once); the first row's snapshot then sets it.
	res := Result{Scenario: c.Base.Scenario, DurationS: c.Duration.Seconds(),
		Columns:    scenarios.SweepKeys(c.Base.Scenario),
		GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU()}
	for i, n := range c.Workers {
		fmt.Fprintf(progress, "sweep: %s at %d workers (%d/%d), %v after a warm-up of at least %v\n",
			res.Scenario, n, i+1, len(c.Workers), c.Duration, warm)
		row, snap, err := runOne(ctx, c.Base, n, warm, c.Duration, res.Columns)
		if err != nil {
			res.Took = time.Since(start)
			return res, err
		}
		res.Scenario, res.GOMAXPROCS, res.NumCPU = snap.Scenario, snap.GOMAXPROCS, snap.NumCPU
		if snap.CPULimit > 0 {
			v := snap.CPULimit
			res.CPULimit = &v
		}
		res.Rows = append(res.Rows, row)
	}
	speedups(res.Rows)
	res.Took = time.Since(start)
	return res, nil
}

// runOne measures one pool size on a fresh session.
func runOne(ctx context.Context, base session.Config, workers int, warm, d time.Duration, cols []string) (Row, session.Snapshot, error) {
	cfg := base
	cfg.Workers = workers
	cfg.Window = d + warm // the window covers the whole run; Reset trims it
	s, err := session.New(cfg)
	if err != nil {
		return Row{}, session.Snapshot{}, err
	}
	defer s.Close()
	row := Row{Workers: workers, Balanced: true}
	check := func(snap session.Snapshot) {
		if !snap.Balanced() {
			row.Balanced = false
		}
	}
	var first, last session.Snapshot
	// Warm up for at least warm and until the scenario has its first
	// answer (servers up, a first batch through), at most maxWarmup.
	minWarm, maxWarm := time.After(warm), time.After(maxWarmup)
	warmed, answered := false, false
	for !(warmed && answered) {
		select {
		case <-ctx.Done():
			return row, last, ctx.Err()
		case snap := <-s.Samples():
			check(snap)
			answered = answered || hasAnswer(snap)
		case <-minWarm:
			warmed = true
		case <-maxWarm:
			warmed, answered = true, true
		}
	}
	if err := s.Apply(session.Action{Kind: session.Reset}); err != nil {
		return row, last, err
	}
	end := time.After(d)
	have := false
	for measuring := true; measuring; {
		select {
		case <-ctx.Done():
			return row, last, ctx.Err()
		case snap := <-s.Samples():
			check(snap)
			if !have {
				first, have = snap, true // the first sample after the reset
			}
			last = snap
		case <-end:
			measuring = false
		}
	}
	// Counts and times from the same two samples: wall is exact for them.
	fill(&row, first, last, last.Elapsed-first.Elapsed, cols)
	return row, last, nil
}

// maxWarmup bounds the wait for a scenario's first answer.
const maxWarmup = 30 * time.Second

// hasAnswer reports whether the scenario's answer_ok is known.
func hasAnswer(s session.Snapshot) bool {
	for _, r := range s.Readouts {
		if r.Key == "answer_ok" {
			return r.Known
		}
	}
	return true // a scenario without an answer has nothing to wait for
}

// fill computes a row from the first and last samples of a measured run.
func fill(row *Row, first, last session.Snapshot, wall time.Duration, cols []string) {
	if wall <= 0 {
		return
	}
	row.ThroughputPerS = float64(last.Completed-first.Completed) / wall.Seconds()
	row.CPUSeconds = last.CPUSeconds - first.CPUSeconds
	row.CPUPerWall = row.CPUSeconds / wall.Seconds()
	row.ProbeP99MS = p99(last.ProbeTotal.Count, last.ProbeTotal.P99)
	row.TaskP99MS = p99(last.Task.Count, last.Task.P99)
	if last.RSSBytes >= 0 {
		v := float64(last.RSSBytes) / (1 << 20)
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

// speedups fills Speedup and Efficiency against the 1-worker row.
func speedups(rows []Row) {
	var ref float64
	for _, r := range rows {
		if r.Workers == 1 {
			ref = r.ThroughputPerS
		}
	}
	if ref <= 0 {
		return
	}
	for i := range rows {
		sp := rows[i].ThroughputPerS / ref
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
// any CPU limit, a header, one row per pool size.
func (r Result) Write(w io.Writer) error {
	limit := "none"
	if r.CPULimit != nil {
		limit = strconv.FormatFloat(*r.CPULimit, 'g', 3, 64) + " CPUs"
	}
	fmt.Fprintf(w, "%s: GOMAXPROCS %d, NumCPU %d, CPU limit %s, %gs per size\n",
		r.Scenario, r.GOMAXPROCS, r.NumCPU, limit, r.DurationS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "workers\ttasks/s\tCPU s\tCPU/wall\tspeed-up\tefficiency\tprobe p99 ms\ttask p99 ms\tRSS MB\t"
	for _, k := range r.Columns {
		head += k + "\t"
	}
	fmt.Fprintln(tw, head+"answer\t")
	for _, row := range r.Rows {
		line := fmt.Sprintf("%d\t%s\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t%s\t",
			row.Workers, num(&row.ThroughputPerS), row.CPUSeconds, row.CPUPerWall,
			num(row.Speedup), num(row.Efficiency), num(row.ProbeP99MS), num(row.TaskP99MS), num(row.RSSMB))
		for _, k := range r.Columns {
			line += num(row.Extra[k]) + "\t"
		}
		fmt.Fprintln(tw, line+answer(row)+"\t")
	}
	return tw.Flush()
}

// num formats a figure with about three significant digits; n/a for nil.
func num(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return Figure(*v)
}

// Figure formats a figure for a table with about three significant
// digits, whole numbers whole; n/a for NaN or an infinity. The sweep table
// and the exit summary both print with it.
func Figure(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case v == math.Trunc(v) && a < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64) // a count reads whole
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
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
