//go:build shape

package scenarios_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/shape"
	"github.com/offtop/offtop/internal/sizing"
	"github.com/offtop/offtop/internal/sweep"
)

// TestShapeChunkifyCostsMoreThanTwiceTheCPU: 2 jobs on 4 workers split by
// chunkify count 5 jobs, so the batch burns at least twice the CPU of an
// even split of the same 2 jobs (2.5 times in the seed).
func TestShapeChunkifyCostsMoreThanTwiceTheCPU(t *testing.T) {
	shape.Judge(t)
	snap := countBatch(t, 4, 0.5, scenarios.Config{CountSplit: scenarios.SplitChunkify, CountJobs: 2})
	r, _ := readout(snap, "cpu_vs_even")
	cpu, _ := readout(snap, "batch_cpu_ms")
	even, _ := readout(snap, "even_cpu_ms")
	t.Logf("chunkify: batch CPU %.1f ms, an even split's %.1f ms, ratio %.2f", cpu.Value, even.Value, r.Value)
	if !r.Known || r.Value < 2 {
		t.Errorf("CPU vs even split = %+v, want >= 2", r)
	}
}

// TestShapeObjectsBlockTheLoopLongerThanTheSum is seed 000 s5: at
// 1,000,000 objects the Loop is blocked serialising them for the pool at
// least 5 times as long as it takes to sum their prices in place (115
// against 8 ms in the seed).
func TestShapeObjectsBlockTheLoopLongerThanTheSum(t *testing.T) {
	shape.Judge(t)
	snap := objectsRounds(t, 1, 1)
	b, _ := readout(snap, "objects_blocked_ms")
	s, _ := readout(snap, "objects_inline_sum_ms")
	rt, _ := readout(snap, "objects_round_trip_ms")
	t.Logf("1M objects: blocked %.1f ms, round trip %.1f ms, inline sum %.1f ms (seed: 115, 350, 8)", b.Value, rt.Value, s.Value)
	if !(b.Known && s.Known && b.Value >= 5*s.Value) {
		t.Errorf("blocked %+v, inline sum %+v: want blocked >= 5 x sum", b, s)
	}
}

// TestShapeOutsideClientAgreesWithTheProbe drives server from outside
// (--no-load): workers 0, /slow and /fast driven by 2 closed-loop
// connections each (as seed 001 drove autocannon, docs/seeds.md), and
// /ping sent open-loop every 20 ms by a client that times each reply from
// the moment it was due, as wrk2 and oha -q do: the client's /ping p99 and
// the Loop probe's corrected p99 agree within 15%.
//
// Open loop, because the probe's corrected p99 is a figure over time: a
// closed-loop pinger sends its next ping the instant the last came back,
// just behind the fib the Loop takes up next, so its few samples are
// phase-locked to the Loop's schedule and disagree with the probe
// (docs/internals.md).
func TestShapeOutsideClientAgreesWithTheProbe(t *testing.T) {
	shape.Judge(t)
	s, addr := listenSession(t, 0)
	defer s.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 256}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	other := &outsideLoad{body: map[string]int{}}
	other.run(ctx, &wg, client, "http://"+addr+"/slow", 2)
	other.run(ctx, &wg, client, "http://"+addr+"/fast", 2)
	time.Sleep(2 * time.Second) // warm up, then measure both from here
	if err := s.Apply(session.Action{Kind: session.Reset}); err != nil {
		t.Fatal(err)
	}
	ping := &outsideLoad{body: map[string]int{}}
	send, stopSending := context.WithCancel(ctx)
	defer stopSending()
	var pings sync.WaitGroup
	ping.every(ctx, send, &pings, client, "http://"+addr+"/ping", 20*time.Millisecond)
	// 15 s: 750 pings, each fib(37) on the Loop (~0.65 s under -race)
	// seen by some 30 of them; then the pings in flight come back (the
	// slowest, if they were cut off, would bias the client low).
	time.Sleep(15 * time.Second)
	stopSending()
	snap := s.Snapshot()
	done := make(chan struct{})
	go func() { pings.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("pings still in flight 10 s after the last was sent")
	}
	cancel()
	pings.Wait()
	wg.Wait()
	cp, n := ping.p99()
	pp := snap.ProbeTotal.P99
	t.Logf("/ping p99 from the open-loop client %v (%d pings, %d errors), Loop probe p99 %v (corrected, %d samples)",
		cp, n, ping.errs, pp, snap.ProbeTotal.Count)
	if n < 300 || pp <= 0 {
		t.Fatalf("too little data: %d pings, probe %v", n, pp)
	}
	if r := float64(cp) / float64(pp); r < 0.85 || r > 1.15 {
		t.Errorf("client /ping p99 %v vs probe p99 %v: ratio %.2f, want within 15%%", cp, pp, r)
	}
}

// TestShapePoolBringsTheFirstJobBackSooner is seed 000 s5: 64 jobs
// at once on a pool sized to the cores against a goroutine per task: with
// the queue the first job is back no later, and the median job at most
// 0.75 times as late (the seed: first 0.7 against 3.2 s, median 2.8
// against 4.6, 0.61 times; in theory about 0.57: the pool's jobs come
// back one by one, the median at half the batch, 64 goroutines sharing
// the cores mostly near the end).
//
// Go's scheduler does not share the cores evenly among 64 goroutines: a
// few run their job through before the others are scheduled, so one
// per-task run's median reads 0.53-0.94 of its last job (11 runs here,
// quiet). The figures judged are therefore the medians over 3 pairs, run
// the one way first and then the other. Both ways do the same CPU work on
// the same cores, and a goroutine per job costs more, not less: its last
// job came back 0.99-1.68 times as late as the pool's in 19 of 20 pairs
// here, quiet (the other: 0.76). That is the control: a pair whose pool
// run ended over 1.25 times as late as its per-task run measured a
// machine that slowed between the two runs (a CI machine: pool last 2388
// ms against per-task 1680, medians 1361 and 1333) and is left out; with
// fewer than 2 steady pairs the shape is not judged.
func TestShapePoolBringsTheFirstJobBackSooner(t *testing.T) {
	shape.Judge(t)
	cores := runtime.GOMAXPROCS(0)
	// Jobs of ~40 ms (scale 0.4: 64M additions, 36-44 ms of CPU a job on
	// a quiet machine here), well past the scheduler's 10 ms time slice.
	// One pair (each run a 1-worker reference and 2 batches) takes ~10 s
	// here, quiet, and 17 s on a CI machine; each run is bounded by 60 s.
	slow := shape.Watch(t)
	run := func(perTask bool) session.Snapshot {
		snap, ok := batchesWithin(t, burstConfig(cores, 64, 0.4, perTask), 2, 60*time.Second)
		if !ok {
			slow() // not judged when others took the CPUs meanwhile
			t.Fatalf("count, per-task %v: no 2 batches in 60s", perTask)
		}
		return snap
	}
	back := func(snap session.Snapshot, key string) float64 {
		r, _ := readout(snap, key)
		if !r.Known {
			t.Fatalf("%s not known (per-task %v)", key, snap.PerTask)
		}
		return r.Value
	}
	var pf, pm, qf, qm []float64 // pool and per-task first and median back, ms, of the steady pairs
	var unsteady []string
	for round := range 3 {
		var ps, qs session.Snapshot
		if round%2 == 0 {
			ps = run(false)
			qs = run(true)
		} else {
			qs = run(true)
			ps = run(false)
		}
		pfr, pmr, pl := back(ps, "first_done_ms"), back(ps, "median_done_ms"), back(ps, "last_done_ms")
		qfr, qmr, ql := back(qs, "first_done_ms"), back(qs, "median_done_ms"), back(qs, "last_done_ms")
		t.Logf("64 jobs, pool of %d: first %.0f ms, median %.0f, last %.0f, RSS %.1f MB; per-task: first %.0f, median %.0f, last %.0f, RSS %.1f MB",
			cores, pfr, pmr, pl, float64(ps.RSSBytes)/(1<<20), qfr, qmr, ql, float64(qs.RSSBytes)/(1<<20))
		if pl > 1.25*ql {
			unsteady = append(unsteady, fmt.Sprintf("pool %.0f / per-task %.0f", pl, ql))
			continue
		}
		pf, pm, qf, qm = append(pf, pfr), append(pm, pmr), append(qf, qfr), append(qm, qmr)
	}
	slow()
	if len(pf) < 2 {
		why := fmt.Sprintf("in %d of 3 pairs the pool's last job, the same work with less overhead, came back over 1.25 times as late as the per-task run's (ms: %s): the machine slowed between runs",
			len(unsteady), strings.Join(unsteady, ", "))
		if os.Getenv(shape.ForceEnv) != "force" || len(pf) == 0 {
			t.Skipf("not judged: %s", why)
		}
		t.Logf("judged on a busy machine (%s=force): %s", shape.ForceEnv, why)
	}
	first, firstPer, med, medPer := sizing.Median(pf), sizing.Median(qf), sizing.Median(pm), sizing.Median(qm)
	t.Logf("medians over %d steady pairs: first back pool %.0f ms, per-task %.0f; median back pool %.0f ms, per-task %.0f (%.2f times)",
		len(pf), first, firstPer, med, medPer, med/medPer)
	if first > firstPer {
		t.Errorf("first back: pool %.0f ms, per-task %.0f ms; want the pool's no later", first, firstPer)
	}
	if med > 0.75*medPer {
		t.Errorf("median back: pool %.0f ms, per-task %.0f ms; want the pool's at most 0.75 times", med, medPer)
	}
}

// TestShapeLoopsAddCoresNotAFreeLoop is seed 001 on 2 CPUs: offtop sweep
// --scenario server --loops 1,2 --workers 0,1. Two Loops without a pool
// serve /fast at least 1.3 times as fast as one ("cluster adds cores"),
// and their /ping p99 is still at least 10 times that of one Loop with a
// worker ("worker_threads protects the loop").
func TestShapeLoopsAddCoresNotAFreeLoop(t *testing.T) {
	shape.Judge(t)
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs 2 CPUs")
	}
	res, err := sweep.Run(context.Background(), sweep.Config{
		Base:    session.Config{Scenario: "server"},
		Workers: []int{0, 1}, Loops: []int{1, 2}, Duration: 6 * time.Second,
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	res.Write(&b)
	t.Logf("\n%s", b.String())
	rows := map[string]sweep.Row{}
	for _, r := range res.Rows {
		rows[r.Name] = r
		if !r.Balanced {
			t.Errorf("%s: counts did not add up", r.Name)
		}
	}
	fig := func(name, key string) float64 {
		if v := rows[name].Extra[key]; v != nil {
			return *v
		}
		t.Fatalf("%s: no %s", name, key)
		return 0
	}
	if p, c := fig("plain", "fast_rps"), fig("cluster", "fast_rps"); c < 1.3*p {
		t.Errorf("/fast rps: cluster %.1f, plain %.1f; want cluster >= 1.3 x plain", c, p)
	}
	if c, w := fig("cluster", "ping_p99_ms"), fig("worker_threads", "ping_p99_ms"); c < 10*w {
		t.Errorf("/ping p99: cluster %.1f ms, worker_threads %.2f ms; want cluster >= 10 x", c, w)
	}
}
