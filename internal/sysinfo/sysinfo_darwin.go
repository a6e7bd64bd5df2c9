//go:build darwin

package sysinfo

// Current RSS on macOS is proc_pidinfo(PROC_PIDTASKINFO).pti_resident_size,
// a libproc call that x/sys/unix does not wrap and that cannot be made
// cleanly without cgo; getrusage's ru_maxrss is the peak, not the current
// size. So RSS is reported unknown (-1) on macOS; CPU time is known.

func (r *Reader) open(root string) {}

func (r *Reader) readRSS() int64 { return -1 }
