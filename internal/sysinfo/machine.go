package sysinfo

import (
	"errors"
	"os"
	"sync"
	"time"
)

// BusyShare is the limit of a quiet machine for a live reading: others
// (every process but this one) using more than this share of the CPUs the
// reading covers means a figure measured then measures the neighbours
// too. On the project's 2-core VM a quiet stretch reads 0-0.3 CPUs of
// others; two busy loops beside offtop read 1.6-2.
const BusyShare = 0.25

// MachineSample is one reading of how much CPU the rest of the machine has
// used: cumulative, so two readings give the share between them
// (OthersCPUs).
type MachineSample struct {
	At time.Time
	// Others is the CPU time the CPUs of this process's affinity mask
	// spent on anything but this process since boot: their busy time in
	// /proc/stat (user, nice, system, irq, softirq, steal; guest is in
	// user) minus this process's CPU time (getrusage).
	Others time.Duration
	// CPUs is how many CPUs the reading covers.
	CPUs int
	// Known is false where there is no /proc/stat (not Linux) or it did
	// not parse.
	Known bool
}

// MachineReader reads MachineSamples; safe for concurrent use.
type MachineReader interface {
	ReadMachine() MachineSample
}

// OthersCPUs is the CPUs' worth of time others used between prev and cur
// (1.0: one CPU fully busy with other work), at least 0; false when either
// is unknown or the interval is not positive.
func OthersCPUs(prev, cur MachineSample) (float64, bool) {
	wall := cur.At.Sub(prev.At)
	if !prev.Known || !cur.Known || wall <= 0 {
		return 0, false
	}
	return max(float64(cur.Others-prev.Others)/float64(wall), 0), true
}

// Busy reports whether others took more than BusyShare of cpus.
func Busy(others float64, cpus int) bool { return cpus > 0 && others > BusyShare*float64(cpus) }

// ProcStat reads MachineSamples from /proc/stat, kept open and re-read at
// offset 0, into a buffer of its own: about 10 µs and no allocation a read
// on the 2-core VM (BenchmarkReadMachine).
type ProcStat struct {
	mu   sync.Mutex
	f    *os.File // nil: unknown
	cpus []bool   // the affinity mask by CPU number; nil: every CPU (the "cpu" line)
	buf  []byte
}

// userHZ is the unit of /proc/stat: USER_HZ, 100 on every Linux ABI.
const userHZ = 100

// ReadMachine reads /proc/stat and this process's CPU time now.
func (p *ProcStat) ReadMachine() MachineSample {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := MachineSample{At: time.Now()}
	if p.f == nil {
		return s
	}
	n, err := p.f.ReadAt(p.buf, 0)
	if n == 0 && err != nil {
		return s
	}
	own, ok := cpuTime()
	if !ok {
		return s
	}
	ticks, cpus, err := parseProcStat(p.buf[:n], p.cpus)
	if err != nil {
		return s
	}
	s.Others = time.Duration(ticks)*(time.Second/userHZ) - own
	s.CPUs, s.Known = cpus, true
	return s
}

// Close releases the file; later reads are unknown.
func (p *ProcStat) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		return nil
	}
	err := p.f.Close()
	p.f = nil
	return err
}

var errProcStat = errors.New("sysinfo: /proc/stat: no cpu line")

// parseProcStat sums the busy ticks (fields user nice system irq softirq
// steal) of the lines "cpuN" with cpus[N] true, or of the line "cpu" (all
// CPUs) when cpus is nil, and says how many CPUs they are. A pure function.
func parseProcStat(b []byte, cpus []bool) (ticks int64, n int, err error) {
	for len(b) > 0 {
		line := b
		if i := indexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(line) < 4 || string(line[:3]) != "cpu" {
			break // the cpu lines come first
		}
		rest := line[3:]
		cpu := -1
		if rest[0] != ' ' {
			cpu, rest = leadingInt(rest)
			if cpu < 0 {
				continue
			}
		}
		switch {
		case cpus == nil && cpu == -1:
		case cpus != nil && cpu >= 0 && cpu < len(cpus) && cpus[cpu]:
		default:
			continue
		}
		var f [8]int64 // user nice system idle iowait irq softirq steal
		for i := range f {
			for len(rest) > 0 && rest[0] == ' ' {
				rest = rest[1:]
			}
			v, r := leadingInt(rest)
			if v < 0 {
				return 0, 0, errProcStat
			}
			f[i], rest = int64(v), r
		}
		ticks += f[0] + f[1] + f[2] + f[5] + f[6] + f[7]
		if cpu == -1 {
			return ticks, countCPULines(b), nil
		}
		n++
	}
	if n == 0 {
		return 0, 0, errProcStat
	}
	return ticks, n, nil
}

// countCPULines counts the "cpuN" lines at the start of b (what follows the
// "cpu" line).
func countCPULines(b []byte) int {
	n := 0
	for len(b) >= 4 && string(b[:3]) == "cpu" {
		n++
		i := indexByte(b, '\n')
		if i < 0 {
			break
		}
		b = b[i+1:]
	}
	return n
}

// leadingInt reads the decimal number b starts with, and the rest; -1 when
// b starts with no digit or the number passes 1<<62.
func leadingInt(b []byte) (int, []byte) {
	i, v := 0, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if v > 1<<62/10 {
			return -1, b
		}
		v = v*10 + int(b[i]-'0')
	}
	if i == 0 {
		return -1, b
	}
	return v, b[i:]
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
