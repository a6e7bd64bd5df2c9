//go:build cpuprofile

// Built only with -tags cpuprofile (bench and profiling, never shipped):
// OFFTOP_CPUPROFILE=FILE writes a CPU profile of the first
// OFFTOP_CPUPROFILE_FOR (a Go duration, default 20s) of the run to FILE.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
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
