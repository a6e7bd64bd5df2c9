//go:build !linux

package sysinfo

// affinity is unknown off Linux.
func affinity() int { return 0 }
