// Command floor is the observer's floor: a Go program with the wake-ups
// offtop has while its load is paused and nothing else. Two goroutines wake
// on 10 ms tickers (offtop's Loop-delay and scheduler probes) and one on a
// ticker of -interval (offtop's sampler, 250 ms by default); none of them
// does any work. What it costs a core is what any Go program waking that
// often costs on this machine: bench/observer measures it beside offtop
// paused and prints offtop's cost as a ratio of it.
//
// Usage: floor [-interval 250ms] [-duration 20s]
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	interval := flag.Duration("interval", 250*time.Millisecond, "period of the third ticker (offtop's --interval)")
	duration := flag.Duration("duration", 20*time.Second, "how long to run")
	flag.Parse()
	if *interval <= 0 || *duration <= 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: floor [-interval D] [-duration D] (both > 0)")
		os.Exit(2)
	}
	tick := func(d time.Duration) {
		t := time.NewTicker(d)
		for range t.C {
		}
	}
	go tick(10 * time.Millisecond)
	go tick(10 * time.Millisecond)
	go tick(*interval)
	time.Sleep(*duration)
}
