package sweep

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/hist"
)

// oneRun is a run's histograms, one value in each.
func oneRun(start time.Time) histograms {
	h := histograms{probe: hist.NewHistogram(), headline: hist.NewHistogram(), task: hist.NewHistogram(),
		start: start, end: start.Add(time.Second)}
	for _, x := range []int64{3e6, 5e6, 7e6} {
		_ = h.probe.RecordValue(x)
		_ = h.headline.RecordValue(x)
		_ = h.task.RecordValue(x)
	}
	return h
}

// regularLog fails t unless path is a regular file (not a link, not a
// FIFO) of mode 0644 holding n interval histograms.
func regularLog(t *testing.T, path string, n int) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
		t.Fatalf("%s: mode %v, want a regular file of mode 0644", path, fi.Mode())
	}
	if hs := readLog(t, path); len(hs) != n {
		t.Errorf("%s: %d histograms, want %d", path, len(hs), n)
	}
}

// TestHdrLogReplacesFIFO: a FIFO at a log's name is replaced by the log,
// never opened (opening one for writing blocks until a reader comes; the
// test holds a reader so that a sweep which opens it shows as a FIFO left
// in place, not as a hang). Two runs: the second keeps the first's lines.
func TestHdrLogReplacesFIFO(t *testing.T) {
	dir := t.TempDir()
	path := HdrLogPath(dir, "count", "w1")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	rd, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	res := &Result{Scenario: "count"}
	start := time.UnixMilli(1_700_000_000_000)
	res.logRun(dir, Row{Workers: 1}, 1, oneRun(start))
	res.logRun(dir, Row{Workers: 1}, 2, oneRun(start.Add(2*time.Second)))
	if len(res.HdrLogMissing) > 0 {
		t.Fatalf("missing %+v", res.HdrLogMissing)
	}
	regularLog(t, path, 6)
	leftovers(t, dir, 1)
}

// TestHdrLogReplacesSymlink: a symlink at a log's name, to a file outside
// the directory, is replaced by the log; the file it pointed to is left
// as it was.
func TestHdrLogReplacesSymlink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("keep me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := HdrLogPath(dir, "count", "w1")
	if err := os.Symlink(secret, path); err != nil {
		t.Fatal(err)
	}
	res := &Result{Scenario: "count"}
	res.logRun(dir, Row{Workers: 1}, 1, oneRun(time.UnixMilli(1_700_000_000_000)))
	if len(res.HdrLogMissing) > 0 {
		t.Fatalf("missing %+v", res.HdrLogMissing)
	}
	if b, err := os.ReadFile(secret); err != nil || string(b) != "keep me\n" {
		t.Errorf("the link's target now holds %q (%v), want it unchanged", b, err)
	}
	regularLog(t, path, 3)
	leftovers(t, dir, 1)
}

// leftovers fails t unless dir holds n entries (no temporary file left).
func leftovers(t *testing.T, dir string, n int) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != n {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want %d entries", dir, names, n)
	}
}
