package agent

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/offtop/offtop/internal/hist"
)

// MetricsPath is where Handler (and so Mount and Listen) serves the
// Prometheus exposition of Collector, under the same loopback rule as the
// stream.
const MetricsPath = DefaultPath + "metrics"

// LatencyBuckets are the upper bounds of the classic buckets of every
// histogram of Collector (a +Inf bucket follows): 1-2-5 steps from 10 us
// to 10 s. A value counts at or below a bound when the highest value of
// its HDR bucket is, the rule of the agent's percentiles: a bound is
// within 1% of where the count is taken.
var LatencyBuckets = []time.Duration{
	10 * time.Microsecond, 20 * time.Microsecond, 50 * time.Microsecond,
	100 * time.Microsecond, 200 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second,
}

// NativeSchema is the schema of the native histograms beside the classic
// buckets (bucket bounds grow by 2^(1/32), about 2.2%): an HDR bucket (1%
// wide at most above 51 us) goes whole to the native bucket of its highest
// value. Native buckets reach Prometheus only in the protobuf exposition.
const NativeSchema = 5

const (
	namespace = "offtop"
	// workerLabel is the slot of a worker, 0..pool.MaxSize-1: the only
	// label, on per-worker series alone.
	workerLabel = "worker"
)

// metrics are the descriptions of what Collector exports (docs/fleet.md
// lists them).
type metrics struct {
	lateness, latenessRaw, wait, run                 *prometheus.Desc
	workers, queued, running                         *prometheus.Desc
	submitted, completed, failed, timedOut, canceled *prometheus.Desc
	rejected, busy, onCPU                            *prometheus.Desc
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(namespace+"_"+name, help, labels, nil)
}

func newMetrics() *metrics {
	return &metrics{
		lateness:    desc("loop_lateness_seconds", "How late the Loop probe ran on the program's loop, corrected for coordinated omission, since the last reset."),
		latenessRaw: desc("loop_lateness_raw_seconds", "How late the Loop probe ran on the program's loop, samples as taken, since the last reset."),
		wait:        desc("pool_task_wait_seconds", "Pool tasks' queue wait, submit to start, since the last reset."),
		run:         desc("pool_task_run_seconds", "Pool tasks' run time, start to end, since the last reset."),
		workers:     desc("pool_workers", "The pool's size: the number of workers last set."),
		queued:      desc("pool_queue_depth", "Tasks waiting in the pool's queue."),
		running:     desc("pool_tasks_running", "Tasks running on the pool now."),
		submitted:   desc("pool_tasks_submitted_total", "Tasks submitted to the pool."),
		completed:   desc("pool_tasks_completed_total", "Tasks that completed."),
		failed:      desc("pool_tasks_failed_total", "Tasks that failed: panicked, returned an error, or dropped by Close."),
		timedOut:    desc("pool_tasks_timed_out_total", "Tasks that ran past their timeout."),
		canceled:    desc("pool_tasks_canceled_total", "Tasks whose context ended while they waited; they never ran."),
		rejected:    desc("pool_tasks_rejected_total", "Submits refused because the queue was full (not counted as submitted)."),
		busy:        desc("pool_worker_busy_seconds_total", "Wall time the worker spent on tasks since it started; rate() is its busy share.", workerLabel),
		onCPU:       desc("pool_worker_oncpu_seconds_total", "Thread CPU time of the worker on tasks since it started; rate() is its on-CPU share.", workerLabel),
	}
}

// collector reads the agent's engines at each scrape: the Loop probe's
// histograms (through the session) and the pool's Stats and latency
// histograms. It keeps no figures of its own.
type collector struct {
	a *Agent
	m *metrics
}

// Collector is a prometheus.Collector of the agent's figures, for a
// program that serves its own /metrics: register it on its registry. Every
// figure is read from the agent at the scrape: the Loop lateness
// histograms and, with a pool, its sizes, counts, per-worker busy and
// on-CPU time and task latency histograms. Histograms count since the
// dashboard's last reset (a reset is a counter reset to Prometheus);
// counters since the pool (or the worker's slot) started.
func (a *Agent) Collector() prometheus.Collector { return &collector{a: a, m: newMetrics()} }

// MetricsHandler serves Collector alone in Prometheus' exposition formats
// (text, and protobuf with native histograms when the scraper asks), for
// mounting where the program likes; it checks no address (Handler's
// MetricsPath does).
func (a *Agent) MetricsHandler() http.Handler {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(a.Collector())
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError})
}

// serveMore serves the paths under DefaultPath that Handler's own switch
// does not: MetricsPath, else 404.
func (a *Agent) serveMore(w http.ResponseWriter, r *http.Request) {
	if strings.TrimPrefix(r.URL.Path, DefaultPath) != "metrics" {
		http.NotFound(w, r)
		return
	}
	a.MetricsHandler().ServeHTTP(w, r)
}

// Describe sends every description, per-worker ones included.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	m := c.m
	for _, d := range []*prometheus.Desc{m.lateness, m.latenessRaw, m.wait, m.run, m.workers, m.queued, m.running,
		m.submitted, m.completed, m.failed, m.timedOut, m.canceled, m.rejected, m.busy, m.onCPU} {
		ch <- d
	}
}

// latencyHistograms is a pool that hands out its wait and run histograms
// (*pool.Pool and *pool.Meter).
type latencyHistograms interface {
	LatencyHistograms() (wait, run *hdr.Histogram)
}

// Collect reads the engines and sends one metric per series.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	m := c.m
	raw, corr := c.a.s.LoopHistograms()
	ch <- histogram(m.lateness, corr)
	ch <- histogram(m.latenessRaw, raw)
	p := accounted(c.a.o.Pool)
	if p == nil {
		return
	}
	if h, ok := p.(latencyHistograms); ok {
		wait, run := h.LatencyHistograms()
		ch <- histogram(m.wait, wait)
		ch <- histogram(m.run, run)
	}
	st := p.Stats()
	gauge := func(d *prometheus.Desc, v int64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v))
	}
	counter := func(d *prometheus.Desc, v int64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
	gauge(m.workers, int64(st.Size))
	gauge(m.queued, st.Queued)
	gauge(m.running, st.Running)
	counter(m.submitted, st.Submitted)
	counter(m.completed, st.Completed)
	counter(m.failed, st.Failed)
	counter(m.timedOut, st.TimedOut)
	counter(m.canceled, st.Canceled)
	counter(m.rejected, st.Rejected)
	for _, w := range st.Workers {
		slot := strconv.Itoa(w.Slot)
		ch <- prometheus.MustNewConstMetricWithCreatedTimestamp(m.busy, prometheus.CounterValue, w.Busy.Seconds(), w.Started, slot)
		if w.OnCPUKnown {
			ch <- prometheus.MustNewConstMetricWithCreatedTimestamp(m.onCPU, prometheus.CounterValue, w.OnCPU.Seconds(), w.Started, slot)
		}
	}
}

// histogram is h (values in ns) as a Prometheus histogram in seconds:
// classic buckets at LatencyBuckets and native buckets of NativeSchema,
// each HDR bucket counted at its highest value; the count is h's, the sum
// h's count times its mean (each bucket at its middle, as hdr's Mean).
func histogram(d *prometheus.Desc, h *hdr.Histogram) prometheus.Metric {
	cum := make(map[float64]uint64, len(LatencyBuckets))
	native := map[int]int64{}
	var n uint64
	var sum float64
	j := 0
	add := func(from, to, count int64) {
		for j < len(LatencyBuckets) && to > int64(LatencyBuckets[j]) {
			cum[LatencyBuckets[j].Seconds()] = n
			j++
		}
		n += uint64(count)
		sum += float64(count) * float64(from+to+1) / 2 / 1e9
		native[nativeIndex(float64(to)/1e9)] += count
	}
	hist.EachBucket(h, add)
	for ; j < len(LatencyBuckets); j++ {
		cum[LatencyBuckets[j].Seconds()] = n
	}
	return &both{
		classic: prometheus.MustNewConstHistogram(d, n, sum, cum),
		native:  prometheus.MustNewConstNativeHistogram(d, n, sum, native, nil, 0, NativeSchema, 0, time.Time{}),
	}
}

// nativeIndex is the native bucket of v > 0 at NativeSchema: the i with
// 2^((i-1)/2^schema) < v <= 2^(i/2^schema).
func nativeIndex(v float64) int {
	const per = 1 << NativeSchema
	i := int(math.Ceil(math.Log2(v) * per))
	if math.Exp2(float64(i-1)/per) >= v { // Log2 rounded up past a bound
		i--
	}
	if math.Exp2(float64(i)/per) < v {
		i++
	}
	return i
}

// both is one histogram with its classic buckets and its native ones: the
// classic metric's, with the native one's schema and spans added.
type both struct{ classic, native prometheus.Metric }

func (b *both) Desc() *prometheus.Desc { return b.classic.Desc() }

func (b *both) Write(out *dto.Metric) error {
	var nat dto.Metric
	if err := b.native.Write(&nat); err != nil {
		return err
	}
	if err := b.classic.Write(out); err != nil {
		return err
	}
	h, nh := out.Histogram, nat.Histogram
	h.Schema, h.ZeroThreshold, h.ZeroCount = nh.Schema, nh.ZeroThreshold, nh.ZeroCount
	h.PositiveSpan, h.PositiveDelta = nh.PositiveSpan, nh.PositiveDelta
	return nil
}
