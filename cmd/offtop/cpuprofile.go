//go:build cpuprofile

// Built only with -tags cpuprofile (bench and profiling, never shipped):
// OFFTOP_CPUPROFILE=FILE writes a CPU profile of the first
// OFFTOP_CPUPROFILE_FOR (a Go duration, default 20s) of the run to FILE,
// sampling at OFFTOP_CPUPROFILE_HZ (default 100; a process using 1% of a
// core needs ~1000 to say anything in 20 s: the runtime then warns once).
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"
)

func init() {
	path := os.Getenv("OFFTOP_CPUPROFILE")
	if path == "" {
		return
	}
	d := 20 * time.Second
	if s := os.Getenv("OFFTOP_CPUPROFILE_FOR"); s != "" {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d <= 0 {
			fmt.Fprintf(os.Stderr, "offtop: OFFTOP_CPUPROFILE_FOR=%q: want a duration > 0\n", s)
			os.Exit(2)
		}
	}
	if s := os.Getenv("OFFTOP_CPUPROFILE_HZ"); s != "" {
		hz, err := strconv.Atoi(s)
		if err != nil || hz <= 0 {
			fmt.Fprintf(os.Stderr, "offtop: OFFTOP_CPUPROFILE_HZ=%q: want a whole number > 0\n", s)
			os.Exit(2)
		}
		runtime.SetCPUProfileRate(hz)
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "offtop:", err)
		os.Exit(2)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "offtop:", err)
		os.Exit(2)
	}
	time.AfterFunc(d, func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	})
}
