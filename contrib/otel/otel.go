// Package otel exports an offtop agent's figures through the
// OpenTelemetry metric API: the figures the agent's Prometheus Collector
// exports (docs/fleet.md), under OpenTelemetry names. The program picks
// the exporter; this package only reads the agent.
//
//	a, _ := agent.New(agent.Options{Pool: p})
//	reader := sdkmetric.NewPeriodicReader(exporter,
//		sdkmetric.WithProducer(offtopotel.NewProducer(a))) // the histograms
//	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
//	reg, _ := offtopotel.Register(a, mp) // the counters and up-down counters
//	defer reg.Unregister()
//
// The pool's counts, sizes and per-worker times are asynchronous
// instruments on the program's metric.MeterProvider, read by one callback
// at each collection (Register). The API has no asynchronous histogram,
// so the agent's HDR histograms reach a reader through a
// go.opentelemetry.io/otel/sdk/metric Producer (NewProducer) as
// exponential histograms of Scale: data, not an aggregation of samples
// recorded again.
//
// It lives in its own module (github.com/offtop/offtop/contrib/otel), so
// offtop's core module does not depend on OpenTelemetry.
package otel

import (
	"context"
	"math"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/internal/hist"
)

// ScopeName is the instrumentation scope of every instrument.
const ScopeName = "github.com/offtop/offtop/contrib/otel"

// Scale is the exponential histograms' scale: bucket bounds are powers of
// 2^(2^-Scale), each bucket about 2.2% wide; an HDR bucket (1% wide at
// most above 51 us) goes whole to the bucket of its highest value, so a
// quantile read from the buckets is within one bucket of the agent's. The
// same buckets as the agent's Prometheus native histograms
// (agent.NativeSchema).
const Scale = agent.NativeSchema

// The instruments' names. Durations are in seconds ("s"), counts of tasks
// "{task}", of workers "{worker}".
const (
	// Histograms (NewProducer), since the dashboard's last reset.
	LoopLateness    = "offtop.loop.lateness"     // corrected for coordinated omission
	LoopLatenessRaw = "offtop.loop.lateness_raw" // samples as taken
	TaskWait        = "offtop.pool.task.wait"    // submit to start
	TaskRun         = "offtop.pool.task.run"     // start to end

	// UpDownCounters (Register), now.
	Workers      = "offtop.pool.workers"      // the size last set
	TasksQueued  = "offtop.pool.task.queued"  // the queue depth
	TasksRunning = "offtop.pool.task.running" // tasks running

	// Counters (Register), since the pool started.
	TasksSubmitted = "offtop.pool.task.submitted"
	TasksCompleted = "offtop.pool.task.completed"
	TasksFailed    = "offtop.pool.task.failed"
	TasksTimedOut  = "offtop.pool.task.timed_out"
	TasksCanceled  = "offtop.pool.task.canceled"
	TasksRejected  = "offtop.pool.task.rejected" // submits refused, not counted as submitted

	// Counters (Register) per worker, with WorkerSlot, since the worker
	// started: rate is its busy (on-CPU) share.
	WorkerBusyTime = "offtop.pool.worker.busy.time" // wall time on tasks
	WorkerCPUTime  = "offtop.pool.worker.cpu.time"  // thread CPU time on tasks; absent without a thread clock
)

// WorkerSlot is the per-worker counters' one attribute: the worker's slot,
// 0 to pool.MaxSize-1 (the stream's worker_slots).
const WorkerSlot = "offtop.worker.slot"

// Register makes the pool's asynchronous instruments on mp's meter of
// ScopeName and one callback that reads the agent's pool (one pool.Stats)
// at each collection. Without a pool it makes none and returns a
// Registration that does nothing. Unregister the result to stop the
// reads; errors are the meter's.
func Register(a *agent.Agent, mp metric.MeterProvider) (metric.Registration, error) {
	p := a.Pool()
	if p == nil {
		return noRegistration{}, nil
	}
	m := mp.Meter(ScopeName)
	var err error
	updown := func(name, unit, desc string) metric.Int64ObservableUpDownCounter {
		in, e := m.Int64ObservableUpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		err = cmpErr(err, e)
		return in
	}
	counter := func(name, desc string) metric.Int64ObservableCounter {
		in, e := m.Int64ObservableCounter(name, metric.WithUnit("{task}"), metric.WithDescription(desc))
		err = cmpErr(err, e)
		return in
	}
	seconds := func(name, desc string) metric.Float64ObservableCounter {
		in, e := m.Float64ObservableCounter(name, metric.WithUnit("s"), metric.WithDescription(desc))
		err = cmpErr(err, e)
		return in
	}
	workers := updown(Workers, "{worker}", "The pool's size: the number of workers last set.")
	queued := updown(TasksQueued, "{task}", "Tasks waiting in the pool's queue.")
	running := updown(TasksRunning, "{task}", "Tasks running on the pool now.")
	submitted := counter(TasksSubmitted, "Tasks submitted to the pool.")
	completed := counter(TasksCompleted, "Tasks that completed.")
	failed := counter(TasksFailed, "Tasks that failed: panicked, returned an error, or dropped by Close.")
	timedOut := counter(TasksTimedOut, "Tasks that ran past their timeout.")
	canceled := counter(TasksCanceled, "Tasks whose context ended while they waited; they never ran.")
	rejected := counter(TasksRejected, "Submits refused because the queue was full (not counted as submitted).")
	busy := seconds(WorkerBusyTime, "Wall time the worker spent on tasks since it started.")
	onCPU := seconds(WorkerCPUTime, "Thread CPU time of the worker on tasks since it started.")
	if err != nil {
		return nil, err
	}
	return m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := p.Stats()
		o.ObserveInt64(workers, int64(st.Size))
		o.ObserveInt64(queued, st.Queued)
		o.ObserveInt64(running, st.Running)
		o.ObserveInt64(submitted, st.Submitted)
		o.ObserveInt64(completed, st.Completed)
		o.ObserveInt64(failed, st.Failed)
		o.ObserveInt64(timedOut, st.TimedOut)
		o.ObserveInt64(canceled, st.Canceled)
		o.ObserveInt64(rejected, st.Rejected)
		for _, w := range st.Workers {
			slot := metric.WithAttributes(attribute.Int(WorkerSlot, w.Slot))
			o.ObserveFloat64(busy, w.Busy.Seconds(), slot)
			if w.OnCPUKnown {
				o.ObserveFloat64(onCPU, w.OnCPU.Seconds(), slot)
			}
		}
		return nil
	}, workers, queued, running, submitted, completed, failed, timedOut, canceled, rejected, busy, onCPU)
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

type noRegistration struct{ metric.Registration }

func (noRegistration) Unregister() error { return nil }

// Producer hands the agent's histograms to the reader it is given to
// (sdkmetric.WithProducer). Make one with NewProducer.
type Producer struct {
	a *agent.Agent

	mu     sync.Mutex
	starts map[string]start // by instrument name
}

// start is a histogram's cumulative start: when it was first read, or
// when a read found fewer values than the read before (a reset).
type start struct {
	at    time.Time
	count uint64
}

var _ sdkmetric.Producer = (*Producer)(nil)

// NewProducer is a Producer of a's histograms: LoopLateness and
// LoopLatenessRaw, and, with a pool that keeps latency histograms
// (*pool.Pool, *pool.Meter), TaskWait and TaskRun.
func NewProducer(a *agent.Agent) *Producer { return &Producer{a: a, starts: map[string]start{}} }

// latencyHistograms is a pool that hands out its wait and run histograms
// (*pool.Pool and *pool.Meter).
type latencyHistograms interface {
	LatencyHistograms() (wait, run *hdr.Histogram)
}

// named is a histogram with its instrument's name and description.
type named struct {
	name, desc string
	h          *hdr.Histogram
}

// Produce reads the histograms now: one exponential histogram of Scale in
// seconds each, cumulative since the agent's last reset (StartTime: the
// first read, or the first to find fewer values than the read before: a
// reset that more values follow before the next read goes unseen). Count is the HDR histogram's
// exactly; Sum is each HDR bucket at its middle (hdrhistogram's Mean
// times Count); Min and Max are the highest values of the lowest and
// highest HDR buckets in use. It never fails.
func (p *Producer) Produce(context.Context) ([]metricdata.ScopeMetrics, error) {
	now := time.Now()
	raw, corr := p.a.LoopHistograms()
	hs := []named{
		{LoopLateness, "How late the Loop probe ran on the program's loop, corrected for coordinated omission, since the last reset.", corr},
		{LoopLatenessRaw, "How late the Loop probe ran on the program's loop, samples as taken, since the last reset.", raw},
	}
	if lh, ok := p.a.Pool().(latencyHistograms); ok {
		wait, run := lh.LatencyHistograms()
		hs = append(hs, named{TaskWait, "Pool tasks' queue wait, submit to start, since the last reset.", wait},
			named{TaskRun, "Pool tasks' run time, start to end, since the last reset.", run})
	}
	ms := make([]metricdata.Metrics, 0, len(hs))
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range hs {
		dp := exponential(h.h)
		s, ok := p.starts[h.name]
		if !ok || dp.Count < s.count {
			s.at = now
		}
		s.count = dp.Count
		p.starts[h.name] = s
		dp.StartTime, dp.Time = s.at, now
		ms = append(ms, metricdata.Metrics{Name: h.name, Description: h.desc, Unit: "s",
			Data: metricdata.ExponentialHistogram[float64]{Temporality: metricdata.CumulativeTemporality,
				DataPoints: []metricdata.ExponentialHistogramDataPoint[float64]{dp}}})
	}
	return []metricdata.ScopeMetrics{{Scope: instrumentation.Scope{Name: ScopeName}, Metrics: ms}}, nil
}

// exponential is h (values in ns) as an exponential histogram data point
// of Scale in seconds, each HDR bucket counted at its highest value.
func exponential(h *hdr.Histogram) metricdata.ExponentialHistogramDataPoint[float64] {
	dp := metricdata.ExponentialHistogramDataPoint[float64]{Scale: Scale}
	var counts []uint64 // counts[i] is bucket dp.PositiveBucket.Offset+i
	var lo, hi float64
	add := func(from, to, count int64) {
		v := float64(to) / 1e9
		i := int32(index(v))
		b := &dp.PositiveBucket
		switch {
		case counts == nil:
			b.Offset = i
			counts = []uint64{0}
			lo = v
		case i < b.Offset: // not in the HDR's order: grow at the front
			counts = append(make([]uint64, b.Offset-i), counts...)
			b.Offset = i
		}
		for int(i-b.Offset) >= len(counts) {
			counts = append(counts, 0)
		}
		counts[i-b.Offset] += uint64(count)
		dp.Count += uint64(count)
		dp.Sum += float64(count) * float64(from+to+1) / 2 / 1e9
		lo, hi = min(lo, v), max(hi, v)
	}
	hist.EachBucket(h, add)
	dp.PositiveBucket.Counts = counts
	if dp.Count > 0 {
		dp.Min, dp.Max = metricdata.NewExtrema(lo), metricdata.NewExtrema(hi)
	}
	return dp
}

// index is the bucket of v > 0 at Scale: the i with
// base^i < v <= base^(i+1), base = 2^(2^-Scale).
func index(v float64) int {
	const per = 1 << Scale
	i := int(math.Ceil(math.Log2(v)*per)) - 1
	if math.Exp2(float64(i)/per) >= v { // Log2 rounded up past a bound
		i--
	}
	if math.Exp2(float64(i+1)/per) < v {
		i++
	}
	return i
}

// Bounds is the range of bucket i at Scale: (lo, hi] in seconds.
func Bounds(i int32) (lo, hi float64) {
	const per = 1 << Scale
	return math.Exp2(float64(i) / per), math.Exp2(float64(i+1) / per)
}
