package ui

import (
	"math"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
)

func summary(p50, p90, p99, p999, max float64, n int64) hist.Summary {
	d := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	return hist.Summary{P50: d(p50), P90: d(p90), P99: d(p99), P999: d(p999), Max: d(max), Count: n}
}

// richSnapshot has 8 workers (one retiring), readouts of every kind,
// thresholds crossed and histories with gaps.
func richSnapshot() session.Snapshot {
	probe := make([]float64, session.HistoryLen)
	queue := make([]float64, session.HistoryLen)
	for i := range probe {
		probe[i] = 5 + 40*math.Abs(math.Sin(float64(i)/9))
		queue[i] = float64((i * 7) % 23)
	}
	probe[3] = math.NaN()
	workers := make([]float64, session.HistoryLen)
	for i := range workers {
		workers[i] = float64(min(i/60, 3)) // 0, 1, 2, then 3 for the rest
	}
	workers[len(workers)-1] = 8
	row := func(w int, held time.Duration, probe, head float64, cur bool) session.SizeRow {
		return session.SizeRow{Scenario: "server", Workers: w, GOMAXPROCS: 2, Held: held,
			Probe: summary(0, 0, probe, 0, probe*1.2, 500), Headline: summary(0, 0, head, 0, head*1.5, 100), HeadlineName: "ping",
			Completed: int64(held.Seconds() * 20), CPUSeconds: held.Seconds() * 0.9, CPUKnown: true, AnswerKnown: true, AnswerOK: true, Current: cur}
	}
	return session.Snapshot{
		Sizes: []session.SizeRow{
			row(0, 8*time.Second, 780, 793, false), row(1, 8*time.Second, 1.2, 8.4, false),
			row(2, 8*time.Second, 55, 57, false), row(8, 4*time.Second, 190, 195, true),
		},
		Headline: summary(1, 2, 48.2, 60, 70, 100),
		Elapsed:  session.Seconds(12345 * time.Millisecond),
		Run: session.Run{
			Scenario: "server",
			Look:     "watch ping p99: with workers=0 every /slow request blocks the Loop and ping waits behind it; add workers and it drops to ~1 ms",
			Paused:   true,
		},
		Machine: session.Machine{GOMAXPROCS: 2, NumCPU: 4, CPULimit: 1.5, SuggestedWorkers: 2},
		Status: session.Status{
			Load: "2 clients per endpoint",
			Readouts: []scenarios.Readout{
				{Key: "ping_p50_ms", Unit: scenarios.UnitMS, Label: "ping p50", Value: 0.21, Known: true},
				{Key: "ping_p99_ms", Unit: scenarios.UnitMS, Label: "ping p99", Value: 48.2, Known: true},
				{Key: "ping_max_ms", Unit: scenarios.UnitMS, Label: "ping max", Known: false},
				{Key: "ping_failures", Label: "ping failures", Value: 0, Known: true},
				{Key: "fast_rps", Unit: scenarios.UnitRPS, Label: "/fast rps", Value: 81.3, Known: true},
				{Key: "slow_p99_ms", Unit: scenarios.UnitMS, Label: "/slow p99", Value: 412, Known: true},
				{Key: "answer_ok", Label: "answer ok", Value: 1, Known: true, Bool: true},
				{Key: "mode", Label: "mode", Text: "pool-move"},
			},
		},
		Pool: session.Pool{
			Workers:          8,
			QueueDepth:       12,
			Submitted:        1234,
			Completed:        1200,
			Failed:           3,
			Running:          8,
			Rejected:         0,
			Replaced:         1,
			ThroughputPerSec: 95.5,
			WorkerSlots:      []int{0, 1, 2, 3, 4, 5, 6, 7},
			WorkerBusy:       []float64{1, 0.95, 0.7, 0.62, 0.3, 0.05, 0, 1.2},
			WorkerOnCPU:      []float64{0.48, 0.5, 0.7, 0.2, 0.3, 0.05, 0, 0.25},
			WorkerRetiring:   []bool{false, false, false, false, false, false, false, true},
			Task:             summary(12, 380, 420, 450, 460, 300),
		},
		Loop: session.Loop{LoopBusy: 0.93, LoopQueued: 3},
		Process: session.Process{
			CPUPercent: 184,
			CPUSeconds: 1.84,
			RSSBytes:   45_200_000,
			Goroutines: 57,
		},
		Probes: session.Probes{
			Probe:        summary(0.12, 3.4, 48, 97, 120, 500),
			ProbeRaw:     summary(0.1, 0.6, 12, 95, 120, 410),
			ProbeTotal:   summary(0.11, 2.9, 61, 99, 130, 1200),
			ProbeMissed:  2,
			Sched:        summary(0.02, 0.05, 0.4, 1.1, 2, 480),
			SchedRuntime: summary(0.004, 0.01, 0.39, 0.8, 1, 9000),
		},
		Sampling: session.Sampling{
			Interval:   session.Millis(250 * time.Millisecond),
			Resolution: session.Millis(10 * time.Millisecond),
			Window:     session.Seconds(5 * time.Second),
		},
		History: session.History{
			WorkersHistory:    workers,
			ProbeP99History:   probe,
			QueueDepthHistory: queue,
		},
	}
}
