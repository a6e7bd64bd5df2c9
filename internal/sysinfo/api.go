// Package sysinfo reads process-level figures: CPU time (getrusage), current
// RSS, GOMAXPROCS, NumCPU and goroutines.
package sysinfo

import "time"

// Sample is one reading of the process.
type Sample struct {
	At time.Time
	// CPU is user + system CPU time of the whole process since it started
	// (getrusage(RUSAGE_SELF), Linux and macOS); CPUKnown is false where it
	// cannot be read.
	CPU      time.Duration
	CPUKnown bool
	// RSS is the current resident set size in bytes (Linux /proc/self/statm
	// field 2 x page size); -1 when unknown, which it always is on macOS
	// (proc_pidinfo needs cgo) and other systems.
	RSS        int64
	GOMAXPROCS int
	NumCPU     int
	Goroutines int
}
