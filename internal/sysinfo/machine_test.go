package sysinfo

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const procStat2 = "cpu  300 5 100 9000 10 1 2 40 7 0\n" +
	"cpu0 100 5 50 4500 5 1 1 20 7 0\n" +
	"cpu1 200 0 50 4500 5 0 1 20 0 0\n" +
	"intr 1 2 3\nctxt 9\n"

// TestParseProcStat: busy is user+nice+system+irq+softirq+steal, of the
// CPUs in the mask only, or of the cpu line without one; odd input is an
// error, never a figure.
func TestParseProcStat(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    string
		cpus  []bool
		ticks int64
		n     int
		err   bool
	}{
		{"all", procStat2, nil, 300 + 5 + 100 + 1 + 2 + 40, 2, false},
		{"mask both", procStat2, []bool{true, true}, 300 + 5 + 100 + 1 + 2 + 40, 2, false},
		{"mask cpu1", procStat2, []bool{false, true}, 200 + 50 + 1 + 20, 1, false},
		{"mask past the lines", procStat2, []bool{false, false, true}, 0, 0, true},
		{"empty", "", nil, 0, 0, true},
		{"short line", "cpu  1 2 3\n", nil, 0, 0, true},
		{"letters", "cpu  1 2 x 4 5 6 7 8\n", nil, 0, 0, true},
		{"no cpu line", "intr 1 2\n", nil, 0, 0, true},
	} {
		ticks, n, err := parseProcStat([]byte(c.in), c.cpus)
		if (err != nil) != c.err || ticks != c.ticks || n != c.n {
			t.Errorf("%s: got %d ticks on %d CPUs, err %v; want %d on %d, err %v", c.name, ticks, n, err, c.ticks, c.n, c.err)
		}
	}
}

// TestProcStatReadsAFile: a ProcStat over a testdata root reads the file
// again on every read (a tree the test rewrites), and a root without one
// reads unknown.
func TestProcStatReadsAFile(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "proc"), 0o755)
	write := func(user int) {
		s := "cpu  " + strconv.Itoa(user) + " 0 0 100 0 0 0 0 0 0\ncpu0 " + strconv.Itoa(user) + " 0 0 100 0 0 0 0 0 0\n"
		if err := os.WriteFile(filepath.Join(root, "proc/stat"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(1000)
	p := NewProcStat(root)
	p.cpus = nil // the file's lines, whatever this machine's mask
	defer p.Close()
	a := p.ReadMachine()
	write(1100) // 1 s of ticks more
	b := p.ReadMachine()
	if !a.Known || !b.Known || a.CPUs != 1 {
		t.Fatalf("readings %+v, %+v: want known, on 1 CPU", a, b)
	}
	// Others moves by the ticks less this process's own CPU time between.
	if d := b.Others - a.Others; d > time.Second || d < 900*time.Millisecond {
		t.Fatalf("others moved %v over 100 ticks: want about 1s", d)
	}
	if u := NewProcStat(t.TempDir()).ReadMachine(); u.Known {
		t.Fatalf("no proc/stat read %+v: want unknown", u)
	}
}

// TestOthersCPUs: the share between two readings, never negative, unknown
// when either is.
func TestOthersCPUs(t *testing.T) {
	t0 := time.Unix(100, 0)
	a := MachineSample{At: t0, Others: time.Second, CPUs: 2, Known: true}
	b := MachineSample{At: t0.Add(2 * time.Second), Others: 4 * time.Second, CPUs: 2, Known: true}
	if v, ok := OthersCPUs(a, b); !ok || v != 1.5 {
		t.Fatalf("OthersCPUs = %v, %v: want 1.5", v, ok)
	}
	if v, ok := OthersCPUs(b, MachineSample{At: b.At.Add(time.Second), Others: 0, Known: true}); !ok || v != 0 {
		t.Fatalf("backwards: %v, %v: want 0", v, ok)
	}
	if _, ok := OthersCPUs(a, MachineSample{At: b.At}); ok {
		t.Fatal("unknown reading gave a share")
	}
	if !Busy(0.6, 2) || Busy(0.5, 2) || Busy(1, 0) {
		t.Fatal("Busy: want over a quarter of the CPUs only")
	}
}

// BenchmarkReadMachine is the cost of one live reading: /proc/stat and
// getrusage.
func BenchmarkReadMachine(b *testing.B) {
	p := NewProcStat("/")
	defer p.Close()
	if !p.ReadMachine().Known {
		b.Skip("no /proc/stat")
	}
	b.ReportAllocs()
	for b.Loop() {
		p.ReadMachine()
	}
}

// ownRunDelay is the other reading weighed: the run delay (time runnable,
// waiting for a CPU) summed over this process's threads,
// /proc/self/task/*/schedstat field 2.
func ownRunDelay() (time.Duration, int, bool) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, 0, false
	}
	var sum time.Duration
	for _, e := range ents {
		b, err := os.ReadFile("/proc/self/task/" + e.Name() + "/schedstat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		sum += time.Duration(v)
	}
	return sum, len(ents), true
}

// BenchmarkOwnRunDelay is the cost of the run-delay reading, with this
// process's threads (about GOMAXPROCS+4 of a Go program).
func BenchmarkOwnRunDelay(b *testing.B) {
	if _, _, ok := ownRunDelay(); !ok {
		b.Skip("no /proc/self/task")
	}
	_, n, _ := ownRunDelay()
	b.ReportMetric(float64(n), "threads")
	b.ReportAllocs()
	for b.Loop() {
		ownRunDelay()
	}
}
