//go:build linux

package sysinfo

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// NewProcStat opens root's proc/stat ("/" on a real system) once, for the
// CPUs of this process's affinity mask (every CPU when the mask cannot be
// read). A missing file gives readings that are unknown, never an error.
func NewProcStat(root string) *ProcStat {
	p := &ProcStat{buf: make([]byte, 32<<10)}
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) == nil && set.Count() > 0 {
		p.cpus = make([]bool, len(set)*64)
		for i := range p.cpus {
			p.cpus[i] = set.IsSet(i)
		}
	}
	if f, err := os.Open(filepath.Join(root, "proc/stat")); err == nil {
		p.f = f
	}
	return p
}
