package pool

import (
	"crypto/sha256"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/probe"
	"github.com/offtop/offtop/latency"
	"github.com/offtop/offtop/looplag"
)

// burnSink keeps burn's hashing from being optimized away.
var burnSink atomic.Uint32

// burn hashes a 1 KiB buffer n times, each over the previous digest.
func burn(n int) {
	var buf [1024]byte
	for range n {
		sum := sha256.Sum256(buf[:])
		copy(buf[:], sum[:])
	}
	burnSink.Add(uint32(buf[0]))
}

// blocksPerMs is how many burn steps take 1 ms on an uncontended core:
// the fastest of several timed runs.
var blocksPerMs = sync.OnceValue(func() int {
	const n = 500
	best := time.Hour
	for range 7 {
		start := time.Now()
		burn(n)
		best = min(best, time.Since(start))
	}
	return max(1, int(int64(time.Millisecond)*n/int64(best)))
})

// approach is one way of running workers beside the Loop.
type approach struct {
	name     string
	priority bool
	lower    int             // lowerMode while the row runs
	procs    func(n int) int // procsFor while the row runs
}

// approaches are the ones measured: the plain pool; the kept one (nice 19
// and GOMAXPROCS + size); SCHED_IDLE in its place; nice 19 without extra
// Ps; extra Ps without a lowered thread; nice 19 with one extra P.
var approaches = []approach{
	{"plain", false, lowerNice, nil},
	{"nice19+procs", true, lowerNice, func(n int) int { return n }},
	{"idle+procs", true, lowerIdle, func(n int) int { return n }},
	{"nice19", true, lowerNice, func(int) int { return 0 }},
	{"procs", true, lowerNone, func(n int) int { return n }},
	{"nice19+1proc", true, lowerNice, func(n int) int { return min(n, 1) }},
}

// probeFigures are one row's Loop probe p99 (corrected) and throughput.
type probeFigures struct {
	p99       time.Duration
	tasksPerS float64
}

// probeBeside runs tasks 1 ms CPU tasks (idle: none, the Loop alone for
// as long as they would take on every core) through a pool of workers set
// up as a says, submitted all at once, while offtop's Loop probe runs,
// and returns the probe's corrected p99 and the tasks per second.
func probeBeside(t testing.TB, a *approach, workers, tasks int) probeFigures {
	k := blocksPerMs()
	loop := probe.NewLoop()
	defer loop.Close()
	lag := probe.StartLagProbe(loop.Post, looplag.DefaultResolution, latency.DefaultWindow)
	defer lag.Stop()
	time.Sleep(2 * looplag.DefaultResolution)
	if a == nil {
		lag.Reset()
		time.Sleep(time.Duration(tasks) * time.Millisecond / time.Duration(runtime.NumCPU()))
		return probeFigures{p99: lag.Stats().CorrectedAll.P99}
	}
	oldLower, oldProcs := lowerMode, procsFor
	lowerMode = a.lower
	if a.procs != nil {
		procsFor = a.procs
	}
	defer func() { lowerMode, procsFor = oldLower, oldProcs }()
	p, err := New(Options{Size: workers, Priority: a.priority})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var wg sync.WaitGroup
	wg.Add(tasks)
	fn, done := func() { burn(k) }, func(error) { wg.Done() }
	lag.Reset()
	start := time.Now()
	for range tasks {
		if err := p.Submit(fn, done); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	el := time.Since(start)
	return probeFigures{p99: lag.Stats().CorrectedAll.P99, tasksPerS: float64(tasks) / el.Seconds()}
}

// medianFigures is the median p99 and the median tasks/s of rounds.
func medianFigures(rounds []probeFigures) probeFigures {
	ps := make([]time.Duration, len(rounds))
	ts := make([]float64, len(rounds))
	for i, r := range rounds {
		ps[i], ts[i] = r.p99, r.tasksPerS
	}
	slices.Sort(ps)
	slices.Sort(ts)
	return probeFigures{p99: ps[len(ps)/2], tasksPerS: ts[len(ts)/2]}
}

// BenchmarkPriorityApproaches measures each approach at workers = cores
// and 2x cores beside the idle Loop, in 3 interleaved rounds of 1000
// tasks each per b.N (run it with -benchtime 1x), reporting the medians:
// the Loop probe's p99 (ms) and tasks/s per row. ns/op means nothing.
func BenchmarkPriorityApproaches(b *testing.B) {
	const tasks = 1000
	cores := runtime.NumCPU()
	rows := map[string][]probeFigures{}
	var names []string
	for r := range 3 * b.N {
		rows["idle"] = append(rows["idle"], probeBeside(b, nil, 0, tasks))
		if r == 0 {
			names = append(names, "idle")
		}
		for _, w := range []int{cores, 2 * cores} {
			for i := range approaches {
				name := fmt.Sprintf("w%d/%s", w, approaches[i].name)
				rows[name] = append(rows[name], probeBeside(b, &approaches[i], w, tasks))
				if r == 0 {
					names = append(names, name)
				}
			}
		}
	}
	for _, name := range names {
		m := medianFigures(rows[name])
		b.Logf("%-18s p99 %7.2f ms  %6.0f tasks/s", name, float64(m.p99)/1e6, m.tasksPerS)
		b.ReportMetric(float64(m.p99)/1e6, name+"-p99-ms")
	}
}
