// Command engine is offtop's engine alone, paused (bench/internal/engine):
// the Loop with its Loop-delay probe, the scheduler probe (both at
// offtop's 10ms resolution), an idle pool of one worker, and, every
// -interval, the reads offtop's sampler makes of them. No session,
// scenario, encoder or screen. bench/observer runs it beside offtop paused
// and the floor (bench/floor) in the same window: engine/floor is what the
// engine costs beyond the wake-ups any program with the same timers pays;
// offtop/engine is what the rest of offtop (session, the paused scenario,
// the JSON or the screen) adds.
//
// Usage: engine [-interval 250ms] [-duration 20s]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/offtop/offtop/bench/internal/engine"
	"github.com/offtop/offtop/latency"
)

func main() {
	interval := flag.Duration("interval", 250*time.Millisecond, "how often to read the engine (offtop's --interval)")
	duration := flag.Duration("duration", 20*time.Second, "how long to run")
	flag.Parse()
	if *interval <= 0 || *duration <= 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: engine [-interval D] [-duration D] (both > 0)")
		os.Exit(2)
	}
	e, err := engine.Start(1, latency.DefaultWindow)
	if err != nil {
		fmt.Fprintln(os.Stderr, "engine:", err)
		os.Exit(1)
	}
	defer e.Close()
	t := time.NewTicker(*interval)
	defer t.Stop()
	end := time.After(*duration)
	for {
		select {
		case <-t.C:
			e.Sample()
		case <-end:
			return
		}
	}
}
