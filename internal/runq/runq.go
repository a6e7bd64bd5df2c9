// Package runq measures whether other work shares this machine's CPUs
// now: the run delay (time runnable, waiting for a CPU) of threads that
// spin on every CPU for a short while. A quiet machine reads 0-2% on the
// project's 2-core VM; two busy loops beside it read 40-60%.
//
// offtop's shape tests (internal/shape) judge a timing shape only where
// the machine is quiet, and `offtop sweep` says before and after its runs
// whether the machine was, so a table measured beside neighbours says so.
package runq

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// MaxRunDelay is the limit of a quiet machine: spinning threads that wait
// more than this share of their time for a CPU (run delay in
// /proc/thread-self/schedstat) mean other work shares the cores and a
// timing figure would measure the neighbours. The figure is this
// project's choice: on the 2-core VM a quiet run reads a run delay of
// 0-2%; two busy loops beside it read 40-60%.
//
// The load average is not a gate, only reported: it is a 1-minute mean
// that lags by minutes, so a measurement right after a busy step would
// read "busy" from that step, not from neighbours.
const MaxRunDelay = 0.10

// Reading is one measurement of the machine.
type Reading struct {
	// RunDelay is the share (0..1) of the spinning threads' wall time they
	// waited for a CPU.
	RunDelay float64
	// Threads is how many threads spun (one per CPU), Wall how long.
	Threads int
	Wall    time.Duration
	// LoadAvg is the 1-minute load average (/proc/loadavg), -1 unknown.
	LoadAvg float64
}

// Busy reports whether r is above MaxRunDelay.
func (r Reading) Busy() bool { return r.RunDelay > MaxRunDelay }

// String says what r measured in one clause: "2 spinning threads waited
// 48% of 300ms for a CPU (run delay, /proc/thread-self/schedstat);
// load average 3.90 on 2 CPUs".
func (r Reading) String() string {
	load := ""
	if r.LoadAvg >= 0 {
		load = fmt.Sprintf("; load average %.2f on %d CPUs", r.LoadAvg, r.Threads)
	}
	return fmt.Sprintf("%d spinning threads waited %.0f%% of %v for a CPU (run delay, /proc/thread-self/schedstat)%s",
		r.Threads, 100*r.RunDelay, r.Wall.Round(time.Millisecond), load)
}

// Measure spins one goroutine per CPU for about d, each locked to its
// thread, and reads how long those threads waited for a CPU meanwhile
// (their run delay), so it costs d of every core. ok is false on systems
// without /proc/thread-self/schedstat (nothing to measure).
func Measure(d time.Duration) (r Reading, ok bool) {
	if _, ok := threadRunDelay(); !ok {
		return Reading{}, false
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
	r = Reading{RunDelay: float64(waited) / float64(time.Duration(n)*wall), Threads: n, Wall: wall, LoadAvg: -1}
	if l, ok := loadAvg(); ok {
		r.LoadAvg = l
	}
	return r, true
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
