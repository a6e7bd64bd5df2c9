package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// histograms are one run's histograms for the HDR log, values in ns, and
// when its measurement began and ended.
type histograms struct {
	probe, headline, task *hdr.Histogram
	start, end            time.Time
}

// HdrLogTags are the tags of a run's three histograms in an HDR log, in
// the order written: the Loop probe (corrected), the scenario's headline,
// the pool tasks' submit-to-end time.
var HdrLogTags = []string{"loop", "headline", "task"}

// HdrLogPath is the file a configuration's histograms go to in dir:
// SCENARIO-STEM.hlog, the stem as hdrStem names the row (w4, or
// loops2-w4, w4-per-task in a comparison).
func HdrLogPath(dir, scenario, stem string) string {
	return filepath.Join(dir, scenario+"-"+stem+".hlog")
}

// hdrStem names a row's HDR log: wN, led by loopsL with --loops and
// followed by -pool or -per-task with --per-task, then -priority for
// priority workers.
func hdrStem(r Row) string {
	stem := fmt.Sprintf("w%d", r.Workers)
	if r.Loops > 0 {
		stem = fmt.Sprintf("loops%d-%s", r.Loops, stem)
	}
	if n := strings.TrimSuffix(r.Name, "+priority"); n == "pool" || n == "per-task" {
		stem += "-" + n
	}
	if r.Priority {
		stem += "-priority"
	}
	return stem
}

// CheckHdrLog reports whether files can be made and written in dir, an
// existing directory: it writes a small file there, syncs it and removes
// it. The error says why not (not a directory, read-only, no space).
func CheckHdrLog(dir string) error {
	f, err := os.CreateTemp(dir, ".offtop-check-*.hlog")
	if err != nil {
		return err
	}
	_, werr := f.Write(make([]byte, 4096))
	if werr == nil {
		werr = f.Sync()
	}
	cerr := f.Close()
	rerr := os.Remove(f.Name())
	return errors.Join(werr, cerr, rerr)
}

// writeHdrLog writes one run of a size to its file in HdrHistogram's
// interval log format (version 1.3, hdrhistogram-go's HistogramLogWriter)
// and returns the file's whole content: prev, the content of the size's
// earlier runs (nil for its first), then this run. The first run starts
// the file with the format version, a start time and the legend; every
// run adds one interval line per histogram, tagged as HdrLogTags, stamped
// with the run's measured span in seconds since the epoch, values in ns
// (the max column in ms, the writer's default ratio). The file is written
// as a new temporary file in dir, mode 0644, renamed over the name:
// whatever stood there (a file, a symlink, a FIFO) is replaced, never
// opened or followed; a directory there is an error.
func writeHdrLog(dir, scenario, stem string, prev []byte, run int, h histograms) ([]byte, error) {
	path := HdrLogPath(dir, scenario, stem)
	var b bytes.Buffer
	b.Write(prev)
	w := hdr.NewHistogramLogWriter(&b)
	if run == 1 {
		// Writes to a bytes.Buffer do not fail.
		_ = w.OutputLogFormatVersion()
		_ = w.OutputComment(fmt.Sprintf("offtop sweep: %s, %s; tags %v; values in ns", scenario, stem, HdrLogTags))
		_ = w.OutputStartTime(h.start.UnixMilli())
		_ = w.OutputLegend()
	}
	for i, x := range []*hdr.Histogram{h.probe, h.headline, h.task} {
		x.SetTag(HdrLogTags[i])
		x.SetStartTimeMs(h.start.UnixMilli())
		x.SetEndTimeMs(h.end.UnixMilli())
		var err error
		if x.TotalCount() == 0 {
			err = writeEmptyInterval(&b, x)
		} else {
			err = w.OutputIntervalHistogram(x)
		}
		if err != nil {
			return nil, fmt.Errorf("--hdr-log: %s: %w", path, err)
		}
	}
	if err := replaceFile(dir, path, b.Bytes()); err != nil {
		return nil, fmt.Errorf("--hdr-log: %w", err)
	}
	return b.Bytes(), nil
}

// replaceFile makes path, in dir, a regular file of mode 0644 holding
// data: it writes a new temporary file in dir, syncs it and renames it
// over path. A directory at path is refused (the rename fails); the
// temporary file is removed on any error.
func replaceFile(dir, path string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, ".offtop-*.hlog.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(f.Name())
		}
	}()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if fi, lerr := os.Lstat(path); lerr == nil && fi.IsDir() {
		return &os.PathError{Op: "write", Path: path, Err: syscall.EISDIR}
	}
	return os.Rename(f.Name(), path)
}

// writeEmptyInterval writes the interval line of x, empty, as the log
// writer does (tag, start s, length s, max ms, payload) but with max 0,
// HdrHistogram's max of an empty histogram, where hdrhistogram-go's writer
// gives the highest value equivalent to 0 (0.000511 ms).
func writeEmptyInterval(w io.Writer, x *hdr.Histogram) error {
	payload, err := x.EncodeV2()
	if err != nil {
		return err
	}
	start := float64(x.StartTimeMs()) / 1000
	_, err = fmt.Fprintf(w, "Tag=%s,%f,%f,%f,%s\n", x.Tag(), start, float64(x.EndTimeMs())/1000-start, 0.0, payload)
	return err
}
