package sysinfo

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"time"
)

// Reader reads Samples. It keeps what it can open once (on Linux,
// /proc/self/statm) so that a Read costs a few microseconds and allocates
// nothing. It never reads runtime.MemStats, which stops the world. A Reader
// is safe for concurrent use; Close releases it.
type Reader struct {
	pageSize int64

	mu    sync.Mutex // guards the fields below
	statm *os.File   // nil where there is none, or after Close
	buf   [256]byte  // statm is 7 numbers: at most ~150 bytes
}

// NewReader returns a Reader. Where a source cannot be opened the figures it
// gives are reported unknown (RSS -1), not as an error.
func NewReader() *Reader { return NewReaderAt("/") }

// NewReaderAt is NewReader reading /proc under root ("/" on a real system;
// a testdata tree in tests: a missing or odd /proc gives RSS -1, never a
// crash).
func NewReaderAt(root string) *Reader {
	r := &Reader{pageSize: int64(os.Getpagesize())}
	r.open(root)
	return r
}

// Read returns a Sample of the process now.
func (r *Reader) Read() Sample {
	s := Sample{
		At:         time.Now(),
		RSS:        -1,
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		NumCPU:     runtime.NumCPU(),
		Goroutines: runtime.NumGoroutine(),
	}
	s.CPU, s.CPUKnown = cpuTime()
	r.mu.Lock()
	if r.statm != nil {
		s.RSS = r.readRSS()
	}
	r.mu.Unlock()
	return s
}

// Close releases the Reader's files. Reads after Close report RSS -1. Safe
// to call more than once.
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.statm == nil {
		return nil
	}
	err := r.statm.Close()
	r.statm = nil
	return err
}

// CPUFraction returns the CPU time used between prev and cur over the wall
// time between them, in cores: 1.0 is one core fully busy, 2.0 two cores.
// It reports false when either sample has no CPU time, when the interval is
// not positive, or when CPU time went backwards (samples out of order).
func CPUFraction(prev, cur Sample) (float64, bool) {
	if !prev.CPUKnown || !cur.CPUKnown {
		return 0, false
	}
	wall := cur.At.Sub(prev.At)
	cpu := cur.CPU - prev.CPU
	if wall <= 0 || cpu < 0 {
		return 0, false
	}
	return float64(cpu) / float64(wall), true
}

// Errors returned by parseStatm.
var (
	errStatmShort  = errors.New("sysinfo: statm: fewer than 2 fields")
	errStatmSyntax = errors.New("sysinfo: statm: field is not a decimal number")
	errStatmRange  = errors.New("sysinfo: statm: number out of range")
)

// parseStatm returns field 2 (resident pages) of the content of
// /proc/[pid]/statm: "size resident shared text lib data dt", decimal
// numbers separated by single spaces, with a trailing newline. Field 1 must
// be a number too. Later fields are not checked. It is a pure function.
func parseStatm(b []byte) (resident int64, err error) {
	var fields [2]int64
	i := 0
	for f := range fields {
		if f > 0 {
			if i >= len(b) || b[i] != ' ' {
				return 0, errStatmShort
			}
			i++
		}
		start := i
		var v int64
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			d := int64(b[i] - '0')
			if v > (1<<63-1-d)/10 {
				return 0, errStatmRange
			}
			v = v*10 + d
		}
		if i == start {
			if i >= len(b) || b[i] == '\n' {
				return 0, errStatmShort
			}
			return 0, errStatmSyntax
		}
		if i < len(b) && b[i] != ' ' && b[i] != '\n' {
			return 0, errStatmSyntax
		}
		fields[f] = v
	}
	return fields[1], nil
}
