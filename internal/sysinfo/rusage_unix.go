//go:build linux || darwin

package sysinfo

import (
	"time"

	"golang.org/x/sys/unix"
)

// cpuTime returns user + system CPU time of the whole process
// (getrusage(RUSAGE_SELF)). The runtime's /cpu/classes metrics only move at
// GC, so they are no use here.
func cpuTime() (time.Duration, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
