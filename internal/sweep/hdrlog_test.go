package sweep

import (
	"bytes"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/millis"
	"github.com/offtop/offtop/internal/session"
)

// TestHdrLogRoundTrip: two runs of a size written with the log writer
// read back with hdrhistogram-go's HistogramLogReader: six interval
// histograms, tagged loop, headline, task in turn, each with the counts,
// the total and the max it was written with.
func TestHdrLogRoundTrip(t *testing.T) {
	dir := t.TempDir()
	start := time.UnixMilli(1_700_000_000_000)
	var written []*hdr.Histogram
	var prev []byte
	for run := 1; run <= 2; run++ {
		h := histograms{probe: hist.NewHistogram(), headline: hist.NewHistogram(), task: hist.NewHistogram(),
			start: start.Add(time.Duration(run) * 10 * time.Second), end: start.Add(time.Duration(run)*10*time.Second + 5*time.Second)}
		for i := int64(1); i <= 500; i++ {
			_ = h.probe.RecordCorrectedValue(i*int64(time.Microsecond)*int64(run), int64(10*time.Millisecond))
			_ = h.headline.RecordValue(i * int64(time.Millisecond))
			if i%3 == 0 {
				_ = h.task.RecordValue(i * 7 * int64(time.Millisecond))
			}
		}
		written = append(written, hist.Copy(h.probe), hist.Copy(h.headline), hist.Copy(h.task))
		var err error
		if prev, err = writeHdrLog(dir, "count", "w2", prev, run, h); err != nil {
			t.Fatal(err)
		}
	}
	got := readLog(t, HdrLogPath(dir, "count", "w2"))
	if len(got) != len(written) {
		t.Fatalf("read %d histograms, wrote %d", len(got), len(written))
	}
	for i, h := range got {
		w := written[i]
		if h.Tag() != HdrLogTags[i%3] || h.TotalCount() != w.TotalCount() || h.Max() != w.Max() {
			t.Errorf("histogram %d: tag %q count %d max %d, want %q %d %d", i, h.Tag(), h.TotalCount(), h.Max(), HdrLogTags[i%3], w.TotalCount(), w.Max())
		}
		wd, gd := w.Distribution(), h.Distribution()
		for j := range wd {
			if j >= len(gd) || wd[j].Count != gd[j].Count {
				t.Errorf("histogram %d: bar %d differs", i, j)
				break
			}
		}
		if h.StartTimeMs() == 0 {
			t.Errorf("histogram %d: no start time", i)
		}
	}
}

// readLog reads every interval histogram of an HDR log.
func readLog(t *testing.T, path string) []*hdr.Histogram {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := hdr.NewHistogramLogReader(f)
	var got []*hdr.Histogram
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			return got
		}
		got = append(got, h)
	}
}

// TestHdrLogAgreesWithItsRow: with two goroutines spinning beside the
// sweep (a busy machine), every size's log holds exactly the Loop probe
// and headline counts and maxima of its row, and the task p99 the row
// gives: both are one read at the end of the run.
func TestHdrLogAgreesWithItsRow(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs")
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for ctx.Err() == nil {
			}
		})
	}
	dir := t.TempDir()
	res, err := Run(context.Background(), Config{Base: session.Config{Scenario: "count", Scale: 0.05},
		Workers: []int{1, 2}, Duration: time.Second, HdrLog: dir}, io.Discard)
	cancel()
	wg.Wait()
	if err != nil || len(res.Rows) != 2 || res.HdrLogMissing != nil {
		t.Fatalf("%v, %d rows, missing %v", err, len(res.Rows), res.HdrLogMissing)
	}
	ms := func(ns int64) float64 { return *millis.Of(time.Duration(ns)) }
	for _, r := range res.Rows {
		hs := readLog(t, HdrLogPath(dir, "count", hdrStem(r)))
		if len(hs) != 3 {
			t.Fatalf("%d workers: %d histograms", r.Workers, len(hs))
		}
		loop, head, task := hs[0], hs[1], hs[2]
		if loop.TotalCount() != r.Size.ProbeCount || r.Size.ProbeMaxMS == nil || ms(loop.Max()) != *r.Size.ProbeMaxMS {
			t.Errorf("%d workers: log's Loop probe %d samples, max %.3f ms; row's %d, %v", r.Workers, loop.TotalCount(), ms(loop.Max()), r.Size.ProbeCount, r.Size.ProbeMaxMS)
		}
		if head.TotalCount() != r.Size.HeadlineCount {
			t.Errorf("%d workers: log's headline %d, row's %d", r.Workers, head.TotalCount(), r.Size.HeadlineCount)
		}
		if p99 := float64(task.ValueAtPercentile(99)) / 1e6; r.TaskP99MS == nil || p99 != *r.TaskP99MS {
			t.Errorf("%d workers: log's task p99 %.3f ms, row's %v", r.Workers, ms(task.ValueAtPercentile(99)), fmtMS(r.TaskP99MS))
		}
	}
}

// TestHdrLogWriteFailureKeepsTheTable: a log that cannot be written (a
// directory stands at its path) leaves the sweep's rows whole, the other
// logs written, and is named with its reason in HdrLogMissing and under
// the table.
func TestHdrLogWriteFailureKeepsTheTable(t *testing.T) {
	if testing.Short() {
		t.Skip("real runs")
	}
	dir := t.TempDir()
	blocked := HdrLogPath(dir, "count", "w2")
	if err := os.Mkdir(blocked, 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Config{Base: session.Config{Scenario: "count", Scale: 0.05, Interval: 50 * time.Millisecond},
		Workers: []int{1, 2}, Duration: time.Second, HdrLog: dir}, io.Discard)
	if err != nil || len(res.Rows) != 2 {
		t.Fatalf("%v, %d rows, want 2", err, len(res.Rows))
	}
	if len(res.HdrLogMissing) != 1 || res.HdrLogMissing[0].Path != blocked || res.HdrLogMissing[0].Error == "" {
		t.Errorf("missing %+v, want %s with its reason", res.HdrLogMissing, blocked)
	}
	if hs := readLog(t, HdrLogPath(dir, "count", "w1")); len(hs) != 3 {
		t.Errorf("w1's log: %d histograms, want 3", len(hs))
	}
	var out bytes.Buffer
	if err := res.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "--hdr-log: "+blocked+" not written (") {
		t.Errorf("table does not name the missing log:\n%s", out.String())
	}
}

func fmtMS(v *float64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64) + " ms"
}

// TestHdrLogEmptyMaxIsZero: an empty histogram's interval line gives max
// 0 (HdrHistogram's), not the highest value equivalent to 0, and reads
// back empty beside a full one.
func TestHdrLogEmptyMaxIsZero(t *testing.T) {
	dir := t.TempDir()
	start := time.UnixMilli(1_700_000_000_000)
	h := histograms{probe: hist.NewHistogram(), headline: hist.NewHistogram(), task: hist.NewHistogram(),
		start: start, end: start.Add(4 * time.Second)}
	_ = h.probe.RecordValue(int64(3 * time.Millisecond))
	if _, err := writeHdrLog(dir, "count", "w1", nil, 1, h); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(HdrLogPath(dir, "count", "w1"))
	if err != nil {
		t.Fatal(err)
	}
	maxes := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Split(l, ","); strings.HasPrefix(l, "Tag=") && len(f) == 5 {
			maxes[strings.TrimPrefix(f[0], "Tag=")] = f[3]
		}
	}
	if maxes["headline"] != "0.000000" || maxes["task"] != "0.000000" || maxes["loop"] != "3.014655" {
		t.Errorf("interval maxes (ms) %v, want headline and task 0.000000, loop 3.014655", maxes)
	}
	hs := readLog(t, HdrLogPath(dir, "count", "w1"))
	if len(hs) != 3 || hs[0].TotalCount() != 1 || hs[1].TotalCount() != 0 || hs[2].TotalCount() != 0 || hs[1].Tag() != "headline" || hs[2].EndTimeMs()-hs[2].StartTimeMs() != 4000 {
		t.Errorf("read back %d histograms", len(hs))
	}
}
