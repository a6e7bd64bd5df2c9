package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/pool"
)

// scrape GETs url with accept (text when empty) and returns the body.
func scrape(t *testing.T, url, accept string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return b
}

// families parses a text exposition.
func families(t *testing.T, text []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		t.Fatalf("not a text exposition: %v\n%s", err, text)
	}
	return fams
}

// runTasks runs n tasks on p, the last fail of them panicking, and waits
// for every one.
func runTasks(t *testing.T, p *pool.Pool, n, fail int) {
	t.Helper()
	for i := range n {
		err := p.Do(func() {
			if i >= n-fail {
				panic("task fails")
			}
		})
		var pe *pool.PanicError
		if (err != nil) != (i >= n-fail) || (err != nil && !errors.As(err, &pe)) {
			t.Fatalf("task %d: %v", i, err)
		}
	}
}

// TestMetricsAsDocumented: MetricsPath serves every documented family
// with its type, the pool's counts and sizes as testutil reads them, and
// the worker label on the per-worker counters alone, one series per
// worker.
func TestMetricsAsDocumented(t *testing.T) {
	p := newPool(t, 3)
	a, url := listen(t, Options{Pool: p})
	runTasks(t, p, 20, 2) // Do returns once the task is counted

	want := map[string]dto.MetricType{
		"offtop_loop_lateness_seconds":          dto.MetricType_HISTOGRAM,
		"offtop_loop_lateness_raw_seconds":      dto.MetricType_HISTOGRAM,
		"offtop_pool_task_wait_seconds":         dto.MetricType_HISTOGRAM,
		"offtop_pool_task_run_seconds":          dto.MetricType_HISTOGRAM,
		"offtop_pool_workers":                   dto.MetricType_GAUGE,
		"offtop_pool_queue_depth":               dto.MetricType_GAUGE,
		"offtop_pool_tasks_running":             dto.MetricType_GAUGE,
		"offtop_pool_tasks_submitted_total":     dto.MetricType_COUNTER,
		"offtop_pool_tasks_completed_total":     dto.MetricType_COUNTER,
		"offtop_pool_tasks_failed_total":        dto.MetricType_COUNTER,
		"offtop_pool_tasks_timed_out_total":     dto.MetricType_COUNTER,
		"offtop_pool_tasks_canceled_total":      dto.MetricType_COUNTER,
		"offtop_pool_tasks_rejected_total":      dto.MetricType_COUNTER,
		"offtop_pool_worker_busy_seconds_total": dto.MetricType_COUNTER,
	}
	perWorker := []string{"offtop_pool_worker_busy_seconds_total"}
	if p.Stats().Workers[0].OnCPUKnown {
		want["offtop_pool_worker_oncpu_seconds_total"] = dto.MetricType_COUNTER
		perWorker = append(perWorker, "offtop_pool_worker_oncpu_seconds_total")
	}
	fams := families(t, scrape(t, url+"metrics", ""))
	for name, typ := range want {
		f, ok := fams[name]
		if !ok {
			t.Errorf("%s missing", name)
			continue
		}
		if f.GetType() != typ {
			t.Errorf("%s: type %v, want %v", name, f.GetType(), typ)
		}
		var workers []string
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() != workerLabel {
					t.Errorf("%s: label %s", name, l.GetName())
				}
				workers = append(workers, l.GetValue())
			}
		}
		if slices.Contains(perWorker, name) {
			slices.Sort(workers)
			if !slices.Equal(workers, []string{"0", "1", "2"}) {
				t.Errorf("%s: workers %v, want 0 1 2", name, workers)
			}
		} else if len(workers) > 0 || len(f.GetMetric()) != 1 {
			t.Errorf("%s: %d series, labels %v; want one, unlabelled", name, len(f.GetMetric()), workers)
		}
	}
	for name := range fams {
		if _, ok := want[name]; !ok {
			t.Errorf("%s exported, not documented here", name)
		}
	}

	const counts = `
# HELP offtop_pool_queue_depth Tasks waiting in the pool's queue.
# TYPE offtop_pool_queue_depth gauge
offtop_pool_queue_depth 0
# HELP offtop_pool_tasks_completed_total Tasks that completed.
# TYPE offtop_pool_tasks_completed_total counter
offtop_pool_tasks_completed_total 18
# HELP offtop_pool_tasks_failed_total Tasks that failed: panicked, returned an error, or dropped by Close.
# TYPE offtop_pool_tasks_failed_total counter
offtop_pool_tasks_failed_total 2
# HELP offtop_pool_tasks_running Tasks running on the pool now.
# TYPE offtop_pool_tasks_running gauge
offtop_pool_tasks_running 0
# HELP offtop_pool_tasks_submitted_total Tasks submitted to the pool.
# TYPE offtop_pool_tasks_submitted_total counter
offtop_pool_tasks_submitted_total 20
# HELP offtop_pool_workers The pool's size: the number of workers last set.
# TYPE offtop_pool_workers gauge
offtop_pool_workers 3
`
	if err := testutil.CollectAndCompare(a.Collector(), strings.NewReader(counts),
		"offtop_pool_queue_depth", "offtop_pool_tasks_completed_total", "offtop_pool_tasks_failed_total",
		"offtop_pool_tasks_running", "offtop_pool_tasks_submitted_total", "offtop_pool_workers"); err != nil {
		t.Error(err)
	}
	if problems, err := testutil.CollectAndLint(a.Collector()); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", problems, err)
	}
}

// TestMetricsPassPromtool: `promtool check metrics` accepts the
// exposition of an agent with a pool that ran tasks.
func TestMetricsPassPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian package prometheus): not judged")
	}
	p := newPool(t, 2)
	_, url := listen(t, Options{Pool: p})
	runTasks(t, p, 10, 1)
	text := scrape(t, url+"metrics", "")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("promtool check metrics: %v\n%s\non:\n%s", err, out, text)
	}
}

// openStream reads the agent's stream at url until the test ends.
func openStream(t *testing.T, url string) *bufio.Scanner {
	t.Helper()
	resp, err := http.Get(url + "stream")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	return sc
}

// histogramOf is the histogram family name's one histogram.
func histogramOf(t *testing.T, fams map[string]*dto.MetricFamily, name string) *dto.Histogram {
	t.Helper()
	f, ok := fams[name]
	if !ok || len(f.GetMetric()) != 1 || f.GetMetric()[0].GetHistogram() == nil {
		t.Fatalf("%s: no one histogram in %v", name, f)
	}
	return f.GetMetric()[0].GetHistogram()
}

// TestHistogramCountsAreTheAgents: each histogram's count (and +Inf
// bucket) is the agent's own: the pool's WaitAll and RunAll counts, the
// Loop probe's samples run (raw) and the stream's probe_total count
// (corrected); the classic buckets are cumulative and end at the count.
func TestHistogramCountsAreTheAgents(t *testing.T) {
	posted := make(chan func(), 1)
	p := newPool(t, 2)
	_, url := listen(t, Options{Pool: p, Post: func(fn func()) { posted <- fn }, Interval: 20 * time.Millisecond, Resolution: time.Millisecond})
	const samples = 5
	for range samples {
		(<-posted)()
	}
	<-posted // the next sample: the last one run is recorded, and nothing more will be
	runTasks(t, p, 30, 3)
	st := p.Stats()

	fams := families(t, scrape(t, url+"metrics", ""))
	check := func(name string, want int64) *dto.Histogram {
		h := histogramOf(t, fams, name)
		if int64(h.GetSampleCount()) != want {
			t.Errorf("%s: count %d, want %d", name, h.GetSampleCount(), want)
		}
		var prev uint64
		for _, b := range h.GetBucket() {
			if b.GetCumulativeCount() < prev {
				t.Errorf("%s: bucket le=%g %d below the one before (%d)", name, b.GetUpperBound(), b.GetCumulativeCount(), prev)
			}
			prev = b.GetCumulativeCount()
		}
		if prev != h.GetSampleCount() || len(h.GetBucket()) != len(LatencyBuckets)+1 {
			t.Errorf("%s: %d buckets ending at %d, want %d ending at the count %d", name, len(h.GetBucket()), prev, len(LatencyBuckets)+1, h.GetSampleCount())
		}
		return h
	}
	check("offtop_pool_task_wait_seconds", st.WaitAll.Count)
	check("offtop_pool_task_run_seconds", st.RunAll.Count)
	if st.RunAll.Count != 30 {
		t.Errorf("pool ran %d tasks, want 30", st.RunAll.Count)
	}
	check("offtop_loop_lateness_raw_seconds", samples)
	corr := histogramOf(t, fams, "offtop_loop_lateness_seconds")
	if corr.GetSampleCount() < samples {
		t.Errorf("corrected count %d below the %d samples", corr.GetSampleCount(), samples)
	}

	// The stream's probe_total is sampled every Interval: read lines until
	// one shows the count.
	sc := openStream(t, url)
	var seen []int64
	for range 200 {
		if !sc.Scan() {
			t.Fatalf("stream ended: %v", sc.Err())
		}
		var line struct {
			ProbeTotal struct {
				Count int64 `json:"count"`
			} `json:"probe_total"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.ProbeTotal.Count == int64(corr.GetSampleCount()) {
			check("offtop_loop_lateness_seconds", line.ProbeTotal.Count)
			return
		}
		seen = append(seen, line.ProbeTotal.Count)
	}
	t.Fatalf("the stream's probe_total counts %v never reached the histogram's %d", seen, corr.GetSampleCount())
}

// TestHistogramBuckets: values land in the classic bucket of their HDR
// bucket's highest value, the sum is within 1% of the values', and the
// native buckets (NativeSchema) hold the same count at the right index.
func TestHistogramBuckets(t *testing.T) {
	h := hist.NewHistogram()
	_ = h.RecordValues(int64(3*time.Millisecond), 1000)
	_ = h.RecordValues(int64(300*time.Millisecond), 10)
	_ = h.RecordValues(int64(20*time.Second), 1) // above the last bound: +Inf
	var m dto.Metric
	d := prometheus.NewDesc("x_seconds", "x", nil, nil)
	if err := histogram(d, h).Write(&m); err != nil {
		t.Fatal(err)
	}
	got := m.GetHistogram()
	if got.GetSampleCount() != 1011 {
		t.Errorf("count %d, want 1011", got.GetSampleCount())
	}
	wantSum := 1000*0.003 + 10*0.3 + 20
	if s := got.GetSampleSum(); math.Abs(s-wantSum) > 0.01*wantSum {
		t.Errorf("sum %g, want %g within 1%%", s, wantSum)
	}
	cum := map[float64]uint64{}
	for _, b := range got.GetBucket() {
		cum[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	for le, want := range map[float64]uint64{0.002: 0, 0.005: 1000, 0.2: 1000, 0.5: 1010, 10: 1010} {
		if cum[le] != want {
			t.Errorf("le=%g: %d, want %d", le, cum[le], want)
		}
	}
	if got.GetSchema() != NativeSchema || got.GetZeroCount() != 0 {
		t.Fatalf("schema %d zero count %d, want %d and 0", got.GetSchema(), got.GetZeroCount(), NativeSchema)
	}
	// Decode the spans: index and absolute count of each native bucket.
	native := map[int]int64{}
	idx, c := 0, int64(0)
	deltas := got.GetPositiveDelta()
	for _, sp := range got.GetPositiveSpan() {
		idx += int(sp.GetOffset())
		for range sp.GetLength() {
			c += deltas[0]
			deltas = deltas[1:]
			if c != 0 {
				native[idx] = c
			}
			idx++
		}
	}
	// Each value is in the native bucket of a value at most 1% above it
	// (its HDR bucket's highest).
	for v, n := range map[float64]int64{0.003: 1000, 0.3: 10, 20: 1} {
		lo, hi := nativeIndex(v), nativeIndex(v*1.01)
		var in int64
		for i := lo; i <= hi; i++ {
			in += native[i]
		}
		if in != n {
			t.Errorf("native buckets %d..%d of %g: %d, want %d (all: %v)", lo, hi, v, in, n, native)
		}
	}
	if len(native) != 3 {
		t.Errorf("native buckets %v, want 3", native)
	}
}

// TestHistogramOfAnotherRange: a histogram of another range and precision
// than the agent's is read through its bars, with the same buckets.
func TestHistogramOfAnotherRange(t *testing.T) {
	h := hdr.New(1, int64(time.Hour), 3)
	_ = h.RecordValues(int64(3*time.Millisecond), 1000)
	_ = h.RecordValues(int64(300*time.Millisecond), 10)
	var m dto.Metric
	if err := histogram(prometheus.NewDesc("x_seconds", "x", nil, nil), h).Write(&m); err != nil {
		t.Fatal(err)
	}
	cum := map[float64]uint64{}
	for _, b := range m.GetHistogram().GetBucket() {
		cum[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	for le, want := range map[float64]uint64{0.002: 0, 0.005: 1000, 0.2: 1000, 0.5: 1010, 10: 1010} {
		if cum[le] != want {
			t.Errorf("le=%g: %d, want %d", le, cum[le], want)
		}
	}
	if n := m.GetHistogram().GetSampleCount(); n != 1010 {
		t.Errorf("count %d, want 1010", n)
	}
}

// TestNativeIndex: the bucket i of v holds 2^((i-1)/32) < v <= 2^(i/32).
func TestNativeIndex(t *testing.T) {
	for v, want := range map[float64]int{1: 0, 2: 32, 0.5: -32, 1.0001: 1, 0.9999: 0, math.Exp2(1.0 / 32): 1, math.Exp2(1.0/32) * 1.0000001: 2} {
		if got := nativeIndex(v); got != want {
			t.Errorf("nativeIndex(%v) = %d, want %d", v, got, want)
		}
	}
	for _, v := range []float64{1e-6, 3.7e-5, 0.0123, 0.99, 7.5, 99} {
		i := nativeIndex(v)
		if !(math.Exp2(float64(i-1)/32) < v && v <= math.Exp2(float64(i)/32)) {
			t.Errorf("nativeIndex(%v) = %d: bounds %v..%v", v, i, math.Exp2(float64(i-1)/32), math.Exp2(float64(i)/32))
		}
	}
}

// TestScrapeOf256Workers: a 256-worker pool whose every worker has run
// tasks scrapes under 64 KiB, text and protobuf (which carries the native
// buckets too).
func TestScrapeOf256Workers(t *testing.T) {
	p := newPool(t, pool.MaxSize)
	_, url := listen(t, Options{Pool: p})
	// Every worker busy at once: each task waits until all have started.
	start := make(chan struct{})
	var started, done sync.WaitGroup
	started.Add(pool.MaxSize)
	done.Add(pool.MaxSize)
	for range pool.MaxSize {
		if err := p.Submit(func() { started.Done(); <-start }, func(error) { done.Done() }); err != nil {
			t.Fatal(err)
		}
	}
	started.Wait()
	close(start)
	done.Wait() // a task is counted before its done runs
	text := scrape(t, url+"metrics", "")
	proto := scrape(t, url+"metrics", string(expfmt.NewFormat(expfmt.TypeProtoDelim)))
	fams := families(t, text)
	busy := len(fams["offtop_pool_worker_busy_seconds_total"].GetMetric())
	t.Logf("256 workers: text %d bytes, protobuf %d bytes; %d busy series", len(text), len(proto), busy)
	if busy != pool.MaxSize {
		t.Errorf("%d busy series, want %d", busy, pool.MaxSize)
	}
	for _, b := range []struct {
		name string
		n    int
	}{{"text", len(text)}, {"protobuf", len(proto)}} {
		if b.n >= 64<<10 {
			t.Errorf("%s scrape %d bytes, want under 64 KiB", b.name, b.n)
		}
	}
}

// TestMeterMetrics: a pool metered by pool.Meter exports its wait and run
// histograms and its counts as a *pool.Pool does.
func TestMeterMetrics(t *testing.T) {
	m := pool.NewMeter(pool.MeterOptions{Size: func() int { return 2 }})
	_, url := listen(t, Options{Pool: m})
	for range 3 {
		m.Wrap(func() {})()
	}
	fams := families(t, scrape(t, url+"metrics", ""))
	for _, name := range []string{"offtop_pool_task_wait_seconds", "offtop_pool_task_run_seconds"} {
		if n := histogramOf(t, fams, name).GetSampleCount(); n != 3 {
			t.Errorf("%s: count %d, want 3", name, n)
		}
	}
	if f := fams["offtop_pool_tasks_completed_total"]; f == nil || f.GetMetric()[0].GetCounter().GetValue() != 3 {
		t.Errorf("completed: %v, want 3", f)
	}
	if f := fams["offtop_pool_workers"]; f == nil || f.GetMetric()[0].GetGauge().GetValue() != 2 {
		t.Errorf("workers: %v, want 2", f)
	}
}

// BenchmarkScrape: one scrape of MetricsPath over loopback, text, of an
// agent with a 256-worker pool whose workers have all run tasks.
func BenchmarkScrape(b *testing.B) {
	p, err := pool.New(pool.Options{Size: pool.MaxSize})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	a, err := Listen("127.0.0.1:0", Options{Pool: p, Logf: b.Logf})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	var wg sync.WaitGroup
	wg.Add(4 * pool.MaxSize)
	for range 4 * pool.MaxSize {
		if err := p.Submit(func() {}, func(error) { wg.Done() }); err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
	url := "http://" + a.Addr().String() + MetricsPath
	b.ReportAllocs()
	b.ResetTimer()
	var n int64
	for b.Loop() {
		resp, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		k, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		n = k
	}
	b.ReportMetric(float64(n), "bytes/scrape")
}
