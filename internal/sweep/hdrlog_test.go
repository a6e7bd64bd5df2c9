package sweep

import (
	"os"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/offtop/offtop/internal/hist"
)

// TestHdrLogRoundTrip: two runs of a size written with the log writer
// read back with hdrhistogram-go's HistogramLogReader: six interval
// histograms, tagged loop, headline, task in turn, each with the counts,
// the total and the max it was written with.
func TestHdrLogRoundTrip(t *testing.T) {
	dir := t.TempDir()
	start := time.UnixMilli(1_700_000_000_000)
	var written []*hdr.Histogram
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
		if err := writeHdrLog(dir, "count", "w2", run, h); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(HdrLogPath(dir, "count", "w2"))
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
			break
		}
		got = append(got, h)
	}
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
