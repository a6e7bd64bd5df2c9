package scenarios

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/offtop/offtop/internal/sysinfo"
	"github.com/offtop/offtop/internal/workload"
)

func newCount(cfg Config) *count {
	c := &count{}
	jobs := int64(countJobs)
	if cfg.CountJobs > 0 {
		jobs = int64(min(cfg.CountJobs, countMaxJobs))
	}
	c.jobs.Store(jobs)
	split, err := ParseSplit(cfg.CountSplit)
	if err != nil {
		split = SplitQueue // the CLI refused it already; New never fails
	}
	c.split.Store(&split)
	return c
}

// countJobs is the number of jobs in a batch at start (Config.CountJobs;
// [ and ] halve and double it within countMinJobs..countMaxJobs);
// countIters the additions per job at scale 1, sized so one batch (16 x
// 160M additions, ~80 ms of CPU a job) takes about 1.3 s on one core
// (docs/measurements.md). Seed 000 (docs/seeds.md) counts to a billion
// five times; this keeps its shape at a size 2 cores finish in seconds.
const (
	countJobs    = 16
	countMinJobs = 1
	countMaxJobs = 256
	countIters   = 160_000_000
)

// countSum is the job: the sum of 0..n-1, computed the slow way so the CPU
// work is real; its closed form n(n-1)/2 checks the answer (the seed's
// lesson: a benchmark prints its answer, or wasted work hides). It gives up, with
// ok false, soon after stop is set (every 2^20 additions, ~0.4 ms), so
// stopping the scenario never waits for a batch.
func countSum(n int64, stop *atomic.Bool) (sum uint64, ok bool) {
	const chunk = 1 << 20
	for lo := int64(0); lo < n; lo += chunk {
		if stop.Load() {
			return sum, false
		}
		for i := lo; i < min(lo+chunk, n); i++ {
			sum += uint64(i)
		}
	}
	return sum, true
}

// batchResult is one finished batch.
type batchResult struct {
	workers int
	jobs    int64
	wall    time.Duration
	cpu     time.Duration // whole-process CPU time over the batch
	ok      bool
	aborted bool // cut short by Stop: no answer to check
	split   string
	// perWorker is the jobs each chunk got (nil for SplitQueue); counted
	// is the jobs the batch's tasks ran in all (jobs, unless the split is
	// wrong).
	perWorker []int
	counted   int64
	// first, median and last are when the batch's tasks completed, from
	// its start (the seed's section 5: the first report back).
	first, median, last time.Duration
}

type count struct {
	base
	jobs  atomic.Int64 // jobs per batch, read at the start of each batch
	split atomic.Pointer[string]
	// perTask is Env.PerTask, set by Start (nil before, or when the
	// session has no per-task mode).
	perTask atomic.Pointer[func() bool]
	iters   int64
	// stopping makes running jobs give up; set by Stop.
	stopping atomic.Bool
	sys      *sysinfo.Reader

	// mu guards the figures below.
	mu      sync.Mutex
	last    batchResult
	batches int64
	bad     int64
	// refPerJob is the 1-worker wall time per job: from a batch run on one
	// goroutine at start, then from the latest batch the pool ran at 1
	// worker. A 1-worker batch's wall grows linearly with its jobs, so
	// speed-up = refPerJob * jobs / wall for a batch of any size.
	refPerJob time.Duration
	// cpuPerJob is the process CPU per job of the latest batch split right
	// (queue or even; at start the 1-goroutine batch): what an even split
	// of the current batch costs, the reference chunkify is held to.
	cpuPerJob time.Duration
	jobCPU    cpuMeter
}

func (c *count) Name() string { return "count" }

func (c *count) Look() string {
	switch *c.split.Load() {
	case SplitSlice:
		return "slice: fewer jobs than workers and the first gets none; the answer stays right"
	case SplitChunkify:
		return "chunkify never removes what it took: more jobs counted than asked, answer wrong"
	case SplitEven:
		return "an even split cut up front: jobs per worker differ by at most one"
	}
	if pt := c.perTask.Load(); pt != nil && (*pt)() {
		return "a goroutine per job: all finish near the end; a pool brings the first back early"
	}
	return "speed-up stops at the cores you have; more workers past that only burn CPU"
}

func (c *count) Start(env Env) error {
	c.iters = max(int64(float64(countIters)*env.Scale), 1000)
	if env.PerTask != nil {
		c.perTask.Store(&env.PerTask)
	}
	c.sys = sysinfo.NewReader()
	c.begin()
	c.goSafe(func() { c.drive(env) })
	return nil
}

// drive measures the 1-worker reference on its own goroutine, then runs
// batches through the pool until stopped.
func (c *count) drive(env Env) {
	haveRef := false
	// paused from the start too (--no-load): not even the reference
	for c.waitRunning() {
		if !haveRef {
			r := c.batch(func(fn func(), done func(error)) error { fn(); done(nil); return nil }, 1, SplitQueue)
			if r.aborted {
				return
			}
			c.mu.Lock()
			c.refPerJob = r.wall / time.Duration(r.jobs)
			c.cpuPerJob = r.cpu / time.Duration(r.jobs)
			c.mu.Unlock()
			haveRef = true
			continue
		}
		r := c.batch(env.Submit, env.Workers(), *c.split.Load())
		if r.aborted {
			return
		}
		if r.ok {
			env.ObserveHeadline(r.wall)
		}
		c.mu.Lock()
		if r.split != *c.split.Load() {
			c.mu.Unlock()
			continue // the split changed while it ran: a new experiment
		}
		if r.split == SplitQueue || r.split == SplitEven {
			c.cpuPerJob = r.cpu / time.Duration(r.jobs)
		}
		c.last = r
		c.batches++
		if !r.ok {
			c.bad++
		}
		if r.workers == 1 {
			c.refPerJob = r.wall / time.Duration(r.jobs)
		}
		c.mu.Unlock()
	}
}

// batch submits the jobs, split as split says over max(workers, 1)
// chunks, waits for all, and checks the total.
func (c *count) batch(submit func(fn func(), done func(error)) error, workers int, split string) batchResult {
	jobs := c.jobs.Load()
	per := splitJobs(split, int(jobs), workers)
	tasks := per
	if tasks == nil { // the queue: one task per job
		tasks = make([]int, jobs)
		for i := range tasks {
			tasks[i] = 1
		}
	}
	s0 := c.sys.Read()
	start := time.Now()
	var (
		wg      sync.WaitGroup
		total   atomic.Uint64
		fails   atomic.Int64
		aborted atomic.Bool
		doneMu  sync.Mutex
		doneAt  = make([]time.Duration, 0, len(tasks))
		counted int64
	)
	finished := func() {
		doneMu.Lock()
		doneAt = append(doneAt, time.Since(start))
		doneMu.Unlock()
		wg.Done()
	}
	for _, n := range tasks {
		if n == 0 {
			continue // a worker with no job: nothing to submit
		}
		counted += int64(n)
		wg.Add(1)
		err := submit(func() {
			for range n {
				c.jobCPU.run(func() {
					s, ok := countSum(c.iters, &c.stopping)
					total.Add(s)
					if !ok {
						aborted.Store(true)
					}
				})
			}
		}, func(err error) {
			if err != nil {
				fails.Add(1)
			}
			finished()
		})
		if err != nil {
			fails.Add(1)
			finished()
		}
	}
	wg.Wait()
	wall := time.Since(start)
	s1 := c.sys.Read()
	n := uint64(c.iters)
	want := uint64(jobs) * (n * (n - 1) / 2)
	r := batchResult{workers: workers, jobs: jobs, wall: wall, aborted: aborted.Load(), cpu: s1.CPU - s0.CPU,
		ok: fails.Load() == 0 && total.Load() == want, split: split, perWorker: per, counted: counted}
	if len(doneAt) > 0 {
		slices.Sort(doneAt)
		r.first, r.median, r.last = doneAt[0], doneAt[(len(doneAt)-1)/2], doneAt[len(doneAt)-1]
	}
	return r
}

// Stop makes running jobs give up and waits for the driver. Safe twice.
func (c *count) Stop() {
	c.stopping.Store(true)
	c.halt(func() { c.sys.Close() })
}

func (c *count) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	have := c.batches > 0
	rs := []Readout{
		Millis("batch_wall_ms", "batch wall", c.last.wall, have),
		Millis("batch_cpu_ms", "batch CPU", c.last.cpu, have),
		Millis("ref_wall_ms", "1-worker wall", c.refPerJob*time.Duration(c.last.jobs), have && c.refPerJob > 0),
	}
	if have && c.refPerJob > 0 && c.last.wall > 0 {
		sp := float64(c.refPerJob*time.Duration(c.last.jobs)) / float64(c.last.wall)
		rs = append(rs, Num("speedup", "speed-up", sp))
		if c.last.workers > 0 {
			rs = append(rs, Num("efficiency", "efficiency", sp/float64(c.last.workers)))
		} else {
			rs = append(rs, NA("efficiency", "efficiency"))
		}
		rs = append(rs, Num("cpu_per_wall", "CPU/wall", float64(c.last.cpu)/float64(c.last.wall)))
	} else {
		rs = append(rs, NA("speedup", "speed-up"), NA("efficiency", "efficiency"), NA("cpu_per_wall", "CPU/wall"))
	}
	rs = append(rs,
		c.jobCPU.readout("cpu_per_task_ms", "CPU/job"),
		Num("batch_workers", "batch at workers", float64(c.last.workers)),
		Num("batches", "batches", float64(c.batches)),
	)
	rs = append(rs, c.splitReadouts(have)...)
	rs = append(rs, answer(have, c.bad == 0))
	return Status{Load: fmt.Sprintf("%d jobs x %s additions per batch, split %s", c.jobs.Load(), si(float64(c.iters)), *c.split.Load()), Readouts: rs}
}

// SetLoad halves (delta < 0) or doubles (delta > 0) the jobs per batch.
func (c *count) SetLoad(delta int) {
	j := c.jobs.Load()
	delta = clampSteps(delta, bits.Len(countMaxJobs))
	for ; delta > 0; delta-- {
		j *= 2
	}
	for ; delta < 0; delta++ {
		j /= 2
	}
	c.jobs.Store(min(max(j, countMinJobs), countMaxJobs))
}

// splitReadouts are the figures the seed's notes did not print: jobs per
// worker, jobs counted against asked, CPU against an even split's, and
// when the batch's first, median and last task came back. Callers hold mu.
func (c *count) splitReadouts(have bool) []Readout {
	l := c.last
	rs := []Readout{Str("split", "split", *c.split.Load())}
	switch {
	case !have:
		rs = append(rs, NA("jobs_min_per_worker", "jobs per worker"))
	case l.perWorker == nil:
		rs = append(rs, Readout{Key: "jobs_min_per_worker", Label: "jobs per worker", Text: "varies (queue)"}) // each worker takes the next job
	default:
		f := make([]string, len(l.perWorker))
		for i, n := range l.perWorker {
			f[i] = fmt.Sprint(n)
		}
		rs = append(rs, Readout{Key: "jobs_min_per_worker", Label: "jobs per worker", Known: true,
			Value: float64(slices.Min(l.perWorker)), Text: "[" + strings.Join(f, " ") + "]"})
	}
	even := c.cpuPerJob * time.Duration(l.jobs)
	rs = append(rs,
		Readout{Key: "jobs_counted", Label: "jobs counted", Known: have, Value: float64(l.counted),
			Text: fmt.Sprintf("%d of %d", l.counted, l.jobs)},
		Millis("even_cpu_ms", "CPU, split evenly", even, have && even > 0),
	)
	if have && even > 0 {
		rs = append(rs, Num("cpu_vs_even", "CPU vs even split", float64(l.cpu)/float64(even)))
	} else {
		rs = append(rs, NA("cpu_vs_even", "CPU vs even split"))
	}
	return append(rs,
		Millis("first_done_ms", "first back", l.first, have),
		Millis("median_done_ms", "median back", l.median, have),
		Millis("last_done_ms", "last back", l.last, have),
	)
}

// countKnobs: p cycles the split.
var countKnobs = workload.CountKnobs

// Turn applies a knob; a split change starts the figures afresh (the
// answer of a wrong split is not the right split's).
func (c *count) Turn(key string) {
	turn(countKnobs, key, func(_ string, step int) {
		s := nextSplit(*c.split.Load(), step)
		c.mu.Lock()
		c.split.Store(&s)
		c.batches, c.bad = 0, 0
		c.last = batchResult{}
		c.mu.Unlock()
	})
}

func (c *count) Reset() {
	c.mu.Lock()
	c.batches, c.bad = 0, 0
	c.mu.Unlock()
}
