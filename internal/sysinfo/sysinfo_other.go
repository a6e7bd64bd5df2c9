//go:build !linux && !darwin

package sysinfo

import "time"

// Elsewhere neither CPU time nor RSS is read: CPUKnown is false, RSS -1.

func (r *Reader) open(root string) {}

func (r *Reader) readRSS() int64 { return -1 }

func cpuTime() (time.Duration, bool) { return 0, false }
