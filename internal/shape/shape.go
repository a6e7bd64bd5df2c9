// Package shape decides whether a timing shape may be judged on this
// machine now. offtop's tests come in two tiers (README, "Tests"): tests of
// behaviour, which never depend on how fast the machine is, and timing
// shapes (a ratio of tails, an ordering of wall times, a calibration),
// built only with the tag `shape` and judged only where the machine is
// quiet. A busy machine gives "not judged: the machine is busy (...)", a
// skip with the measured reason, never a silent pass and never a failure.
package shape

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// MaxRunDelay is the limit of a quiet machine: a spinning goroutine that
// waits more than this share of its time for a CPU (run delay in
// /proc/thread-self/schedstat) means other work shares the cores and a timing
// shape would measure the neighbours. The figure is this project's choice:
// on the 2-core VM a quiet run reads a run delay of 0-2%; two busy loops
// beside it read 40-60%.
//
// The load average is not a gate, only reported: it is a 1-minute mean
// that lags by minutes, so the shape tier run right after the behaviour
// tier (CI does) would read "busy" from the tier before, not from
// neighbours.
const MaxRunDelay = 0.10

// Busy measures the machine for about d and returns why it is too busy to
// judge a timing shape, or "" when it is quiet. It spins one goroutine per
// CPU for d, each locked to its thread, and reads how long those threads
// waited for a CPU meanwhile (their run delay), so it costs d of every
// core. On systems without /proc it reports "" (nothing to measure).
func Busy(d time.Duration) string {
	if _, ok := threadRunDelay(); !ok {
		return ""
	}
	n := runtime.NumCPU()
	start := time.Now()
	waits := make(chan time.Duration, n)
	for range n {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			before, _ := threadRunDelay()
			for time.Since(start) < d {
			}
			after, _ := threadRunDelay()
			waits <- after - before
		}()
	}
	var waited time.Duration
	for range n {
		waited += <-waits
	}
	wall := time.Since(start)
	share := float64(waited) / float64(time.Duration(n)*wall)
	if share > MaxRunDelay {
		load := ""
		if l, ok := loadAvg(); ok {
			load = fmt.Sprintf("; load average %.2f on %d CPUs", l, n)
		}
		return fmt.Sprintf("%d spinning threads waited %.0f%% of %v for a CPU (run delay, /proc/thread-self/schedstat), above %.0f%%%s",
			n, 100*share, wall.Round(time.Millisecond), 100*MaxRunDelay, load)
	}
	return ""
}

// ForceEnv, set to "force" (OFFTOP_SHAPE=force scripts/shape), makes
// Judge judge on a busy machine too, logging that it was busy: for a shape
// that must run now, its result then measuring the neighbours as well.
const ForceEnv = "OFFTOP_SHAPE"

// Judge skips t with "not judged: the machine is busy (REASON)" when Busy
// says so; otherwise it returns and the caller judges its shape. With
// OFFTOP_SHAPE=force it logs "judged on a busy machine (REASON)" instead
// of skipping.
func Judge(t testing.TB) {
	t.Helper()
	why := Busy(300 * time.Millisecond)
	switch {
	case why == "":
	case os.Getenv(ForceEnv) == "force":
		t.Logf("judged on a busy machine (%s=force): %s", ForceEnv, why)
	default:
		t.Skipf("not judged: the machine is busy (%s)", why)
	}
}

// threadRunDelay is the calling thread's run delay: ns spent runnable,
// waiting for a CPU (the second field of schedstat,
// Documentation/scheduler/sched-stats.rst).
func threadRunDelay() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	v, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(v), true
}

// loadAvg is the 1-minute load average from /proc/loadavg.
func loadAvg() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	return v, err == nil
}
