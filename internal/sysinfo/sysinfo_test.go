package sysinfo

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestReadRSSAndCPU(t *testing.T) {
	r := NewReader()
	defer r.Close()
	s1 := r.Read()
	// Spin until the process has 100ms more CPU time (or 10s pass): on a
	// shared machine a wall-clock spin may get far less than its wall time.
	s2 := s1
	for deadline := time.Now().Add(10 * time.Second); s2.CPU-s1.CPU < 100*time.Millisecond && time.Now().Before(deadline); {
		spin(10 * time.Millisecond)
		s2 = r.Read()
	}
	t.Logf("s1 %+v", s1)
	t.Logf("s2 %+v", s2)

	if s1.GOMAXPROCS != runtime.GOMAXPROCS(0) || s1.NumCPU != runtime.NumCPU() || s1.Goroutines < 1 {
		t.Errorf("runtime figures: %+v", s1)
	}
	if runtime.GOOS == "linux" && s1.RSS <= 0 {
		t.Errorf("RSS = %d, want > 0 on Linux", s1.RSS)
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		if s1.CPUKnown || s1.RSS != -1 {
			t.Errorf("on %s want CPUKnown false, RSS -1: %+v", runtime.GOOS, s1)
		}
		return
	}
	if !s1.CPUKnown || !s2.CPUKnown {
		t.Fatalf("CPU unknown: %+v %+v", s1, s2)
	}
	if d := s2.CPU - s1.CPU; d < 100*time.Millisecond {
		t.Errorf("CPU grew only %v in 10s of spinning", d)
	}
	f, ok := CPUFraction(s1, s2)
	if !ok || f <= 0 || f > float64(runtime.NumCPU())+0.5 {
		t.Errorf("CPUFraction = %v, %v over a spin", f, ok)
	}
}

func TestReadAfterClose(t *testing.T) {
	r := NewReader()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if s := r.Read(); s.RSS != -1 || s.NumCPU < 1 {
		t.Fatalf("Read after Close = %+v, want RSS -1 and the rest", s)
	}
}

func TestReadAllocatesNothing(t *testing.T) {
	r := NewReader()
	defer r.Close()
	if n := testing.AllocsPerRun(100, func() { r.Read() }); n != 0 {
		t.Fatalf("Read allocates %v times", n)
	}
}

func TestCPUFraction(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration, cpu time.Duration) Sample {
		return Sample{At: t0.Add(d), CPU: cpu, CPUKnown: true}
	}
	unknown := Sample{At: t0.Add(time.Second)}
	tests := []struct {
		name      string
		prev, cur Sample
		want      float64
		wantOK    bool
	}{
		{"idle", at(0, time.Second), at(time.Second, time.Second), 0, true},
		{"one core", at(0, 0), at(time.Second, time.Second), 1, true},
		{"half a core", at(0, 2*time.Second), at(250*time.Millisecond, 2*time.Second+125*time.Millisecond), 0.5, true},
		{"two cores", at(0, 0), at(500*time.Millisecond, time.Second), 2, true},
		{"zero interval", at(0, 0), at(0, time.Second), 0, false},
		{"negative interval", at(time.Second, 0), at(0, time.Second), 0, false},
		{"CPU went backwards", at(0, time.Second), at(time.Second, 0), 0, false},
		{"prev unknown", Sample{At: t0}, at(time.Second, time.Second), 0, false},
		{"cur unknown", at(0, 0), unknown, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := CPUFraction(tc.prev, tc.cur)
			if got != tc.want || ok != tc.wantOK {
				t.Fatalf("CPUFraction = %v, %v; want %v, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestParseStatm(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr error
	}{
		{"1126 286 226 5 0 102 0\n", 286, nil},
		{"1126 286 226 5 0 102 0", 286, nil},
		{"1126 286\n", 286, nil},
		{"1126 286", 286, nil},
		{"0 0 0 0 0 0 0\n", 0, nil},
		{"9223372036854775807 9223372036854775807 0\n", 1<<63 - 1, nil},
		{"", 0, errStatmShort},
		{"\n", 0, errStatmShort},
		{"1126", 0, errStatmShort},
		{"1126\n", 0, errStatmShort},
		{"1126 ", 0, errStatmShort},
		{"1126 \n", 0, errStatmShort},
		{" 1126 286\n", 0, errStatmSyntax},
		{"1126  286\n", 0, errStatmSyntax},
		{"1126\t286\n", 0, errStatmSyntax},
		{"abc 286\n", 0, errStatmSyntax},
		{"1126 -286\n", 0, errStatmSyntax},
		{"1126 28x6\n", 0, errStatmSyntax},
		{"1126 286x\n", 0, errStatmSyntax},
		{"1126 9223372036854775808 0\n", 0, errStatmRange},
		{"99999999999999999999999 1\n", 0, errStatmRange},
		{"1126 286\x00\x00\x00", 0, errStatmSyntax},
	}
	for _, tc := range tests {
		got, err := parseStatm([]byte(tc.in))
		if got != tc.want || err != tc.wantErr {
			t.Errorf("parseStatm(%q) = %d, %v; want %d, %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func FuzzParseStatm(f *testing.F) {
	f.Add([]byte("1126 286 226 5 0 102 0\n"))
	f.Add([]byte("1 2"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := parseStatm(b); err == nil && v < 0 {
			t.Fatalf("negative resident %d for %q", v, b)
		}
	})
}

// spin burns CPU on the calling goroutine for d of wall time.
func spin(d time.Duration) {
	x := 0
	for s := time.Now(); time.Since(s) < d; {
		for i := range 1000 {
			x += i
		}
	}
	sink = x
}

var sink int

func BenchmarkRead(b *testing.B) {
	r := NewReader()
	defer r.Close()
	b.ReportAllocs()
	for b.Loop() {
		r.Read()
	}
}

// TestOddProcGivesNA: /proc missing or holding garbage gives RSS -1 (n/a)
// and no crash; CPU time (getrusage) does not depend on /proc.
func TestOddProcGivesNA(t *testing.T) {
	garbage := t.TempDir()
	os.MkdirAll(filepath.Join(garbage, "proc/self"), 0o755)
	os.WriteFile(filepath.Join(garbage, "proc/self/statm"), []byte("not numbers at all\n"), 0o644)
	for name, root := range map[string]string{"missing": t.TempDir(), "garbage": garbage} {
		r := NewReaderAt(root)
		s := r.Read()
		r.Close()
		if s.RSS != -1 {
			t.Errorf("%s /proc: RSS %d, want -1", name, s.RSS)
		}
	}
}
