package sysinfo

import "golang.org/x/sys/unix"

// affinity is the number of CPUs in this process's affinity mask
// (sched_getaffinity(2)); 0 when it cannot be read.
func affinity() int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return 0
	}
	return set.Count()
}
