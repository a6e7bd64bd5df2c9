// Package probe has the Loop, offtop's counterpart of Node's main thread, and
// the probes that measure how late things run: the Loop-delay probe (Node's
// perf_hooks.monitorEventLoopDelay, measured against the schedule) and the
// scheduler probe (the same on a free goroutine, plus the runtime's own
// /sched/latencies:seconds).
package probe

import (
	"time"

	"github.com/offtop/offtop/internal/hist"
)

// LoopStats is a copy of a Loop's counters.
type LoopStats struct {
	// Busy is the cumulative wall time spent inside callbacks, including the
	// one in progress.
	Busy time.Duration
	// Queued is the number of callbacks posted and not yet started.
	Queued int
	// Ran counts callbacks that returned or panicked.
	Ran int64
	// Panics counts callbacks that panicked or called runtime.Goexit
	// (recovered; the Loop goes on).
	Panics int64
}

// LagStats is a copy of a lateness probe's figures. Lateness is
// ran-at minus due-at, where due-at is t0 + k*resolution.
type LagStats struct {
	// Corrected and Raw over the sliding window; CorrectedAll and RawAll
	// since the last Reset. Corrected adds, for a sample later than the
	// resolution, the samples the stalled probe could not take
	// (coordinated-omission correction, hist.Recorder.RecordCorrected).
	Corrected, Raw, CorrectedAll, RawAll hist.Summary
	// Missed counts due times skipped because the previous sample ran past
	// them, since the last Reset.
	Missed int64
	// Resolution is the probe's period.
	Resolution time.Duration
	// Stalled is how late the sample in flight is now, when more than one
	// resolution: the Loop has been blocked that long and is still blocked
	// (its histograms cannot show it until the sample runs). 0 otherwise.
	Stalled time.Duration
}

// SchedStats adds the runtime's view to a scheduler probe's lateness.
type SchedStats struct {
	LagStats
	// Runtime is /sched/latencies:seconds (time a runnable goroutine waited
	// for a P) between the last two calls to Stats: percentiles from the
	// runtime's bucket upper bounds. Count is the number of goroutine
	// schedulings in that interval.
	Runtime hist.Summary
}
