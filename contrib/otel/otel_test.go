package otel_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/offtop/offtop/agent"
	offtopotel "github.com/offtop/offtop/contrib/otel"
	"github.com/offtop/offtop/pool"
)

// gatedLoop is a program's single-goroutine loop (agent.Options.Post)
// that the test can stop: while paused, posted callbacks wait, so the
// agent's Loop probe records nothing and its histograms hold still.
type gatedLoop struct {
	fns  chan func()
	gate sync.Mutex
}

func newGatedLoop(t *testing.T) *gatedLoop {
	l := &gatedLoop{fns: make(chan func(), 64)} // the probe posts one at a time
	go func() {
		for fn := range l.fns {
			l.gate.Lock()
			l.gate.Unlock()
			fn()
		}
	}()
	t.Cleanup(func() { close(l.fns) }) // after the agent's Close: nothing posts
	return l
}

func (l *gatedLoop) post(fn func()) { l.fns <- fn }

// pause stops the loop until the test's cleanup.
func (l *gatedLoop) pause(t *testing.T) {
	l.gate.Lock()
	t.Cleanup(l.gate.Unlock) // before the agent's Close, which stops the probe
}

// summary is a latency object of the agent's JSON line.
type summary struct {
	P99   *float64 `json:"p99_ms"`
	Count int64    `json:"count"`
}

// jsonLine is what the test reads of a stream line.
type jsonLine struct {
	Workers    int     `json:"workers"`
	Queue      int64   `json:"queue_depth"`
	Running    int64   `json:"running"`
	Submitted  int64   `json:"submitted"`
	Completed  int64   `json:"completed"`
	Failed     int64   `json:"failed"`
	TimedOut   int64   `json:"timed_out"`
	Canceled   int64   `json:"canceled"`
	Rejected   int64   `json:"rejected"`
	Slots      []int   `json:"worker_slots"`
	ProbeTotal summary `json:"probe_total"`
	ProbeRaw   summary `json:"probe_raw"`
	TaskWait   summary `json:"task_wait"`
	TaskRun    summary `json:"task_run"`
}

// stream reads the agent's stream from url into a channel until the test
// ends.
func stream(t *testing.T, url string) <-chan jsonLine {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan jsonLine, 1024)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var l jsonLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Errorf("stream line: %v", err)
				return
			}
			ch <- l
		}
	}()
	return ch
}

func next(t *testing.T, lines <-chan jsonLine) jsonLine {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("the stream ended")
		}
		return l
	case <-time.After(30 * time.Second):
		t.Fatal("no stream line in 30 s")
	}
	return jsonLine{}
}

// spin keeps a CPU busy for d.
func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

// collected is one collection: every metric by name.
func collect(t *testing.T, r *sdkmetric.ManualReader) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != offtopotel.ScopeName {
			t.Errorf("scope %q, want %q", sm.Scope.Name, offtopotel.ScopeName)
		}
		for _, m := range sm.Metrics {
			if _, dup := out[m.Name]; dup {
				t.Errorf("%s collected twice", m.Name)
			}
			out[m.Name] = m
		}
	}
	return out
}

// p99 is the exponential bucket holding the value at rank round(0.99 x
// count) (hdrhistogram's rank, the agent's): (lo, hi] seconds.
func p99(dp metricdata.ExponentialHistogramDataPoint[float64]) (lo, hi float64) {
	rank := max(uint64(0.99*float64(dp.Count)+0.5), 1)
	var n uint64
	for i, c := range dp.PositiveBucket.Counts {
		n += c
		if n >= rank {
			return offtopotel.Bounds(dp.PositiveBucket.Offset + int32(i))
		}
	}
	return math.NaN(), math.NaN()
}

// kind is an instrument's kind as a reader sees it.
type kind int

const (
	histogram    kind = iota // an exponential histogram
	counterInt               // a monotonic int64 sum
	counterFloat             // a monotonic float64 sum, per worker
	updown                   // a non-monotonic int64 sum
)

// instrument is what the test expects of one.
type instrument struct {
	name, unit string
	kind       kind
	agent      int64    // the JSON's figure, for the int instruments
	summary    *summary // the JSON's, for a histogram it has
}

// TestInstrumentsAgreeWithTheAgent: a ManualReader with the Producer, and
// Register on its MeterProvider, read a real agent with a real pool (3
// workers, 60 tasks from 6 goroutines, 4 of them panicking): every
// instrument has its documented name, kind and unit, the worker slot
// attribute on the per-worker counters alone; the counts, sizes and
// histogram counts equal the agent's JSON line read after the collection,
// and each histogram's p99 bucket holds the agent's p99.
func TestInstrumentsAgreeWithTheAgent(t *testing.T) {
	loop := newGatedLoop(t)
	p, err := pool.New(pool.Options{Size: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	a, err := agent.Listen("127.0.0.1:0", agent.Options{Name: "otel-test", Pool: p, Post: loop.post,
		Interval: 20 * time.Millisecond, Window: time.Hour, TokenDir: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	lines := stream(t, "http://"+a.Addr().String()+agent.DefaultPath+"stream")

	reader := sdkmetric.NewManualReader(sdkmetric.WithProducer(offtopotel.NewProducer(a)))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	reg, err := offtopotel.Register(a, mp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reg.Unregister() })

	const goroutines, each, fail = 6, 10, 4
	var wg sync.WaitGroup
	var failed sync.Map
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				bad := g == 0 && i < fail
				err := p.Do(func() {
					spin(time.Millisecond)
					if bad {
						panic("task fails")
					}
				})
				var pe *pool.PanicError
				if (err != nil) != bad || (err != nil && !errors.As(err, &pe)) {
					failed.Store(g*each+i, err)
				}
			}
		})
	}
	wg.Wait() // Do returns once its task is counted
	failed.Range(func(k, v any) bool { t.Errorf("task %v: %v", k, v); return true })

	// Samples of the Loop probe, then the loop stops: the histograms hold
	// still once the last sample is recorded.
	for next(t, lines).ProbeTotal.Count < 20 {
	}
	loop.pause(t)

	// A collection agrees with the line after next once both read the
	// same (still) histograms; the last sample may land between them.
	var got map[string]metricdata.Metrics
	var line jsonLine
	for try := 0; ; try++ {
		got = collect(t, reader)
		next(t, lines)
		line = next(t, lines)
		h, ok := got[offtopotel.LoopLateness].Data.(metricdata.ExponentialHistogram[float64])
		if ok && len(h.DataPoints) == 1 && int64(h.DataPoints[0].Count) == line.ProbeTotal.Count {
			break
		}
		if try == 20 {
			t.Fatalf("the Loop lateness never held still: otel %+v, agent count %d", got[offtopotel.LoopLateness].Data, line.ProbeTotal.Count)
		}
	}

	want := []instrument{
		{offtopotel.LoopLateness, "s", histogram, 0, &line.ProbeTotal},
		{offtopotel.LoopLatenessRaw, "s", histogram, 0, nil},
		{offtopotel.TaskWait, "s", histogram, 0, &line.TaskWait},
		{offtopotel.TaskRun, "s", histogram, 0, &line.TaskRun},
		{offtopotel.Workers, "{worker}", updown, int64(line.Workers), nil},
		{offtopotel.TasksQueued, "{task}", updown, line.Queue, nil},
		{offtopotel.TasksRunning, "{task}", updown, line.Running, nil},
		{offtopotel.TasksSubmitted, "{task}", counterInt, line.Submitted, nil},
		{offtopotel.TasksCompleted, "{task}", counterInt, line.Completed, nil},
		{offtopotel.TasksFailed, "{task}", counterInt, line.Failed, nil},
		{offtopotel.TasksTimedOut, "{task}", counterInt, line.TimedOut, nil},
		{offtopotel.TasksCanceled, "{task}", counterInt, line.Canceled, nil},
		{offtopotel.TasksRejected, "{task}", counterInt, line.Rejected, nil},
		{offtopotel.WorkerBusyTime, "s", counterFloat, 0, nil},
	}
	if p.Stats().Workers[0].OnCPUKnown {
		want = append(want, instrument{offtopotel.WorkerCPUTime, "s", counterFloat, 0, nil})
	}
	if line.Submitted != goroutines*each || line.Completed != goroutines*each-fail || line.Failed != fail {
		t.Errorf("agent: submitted %d, completed %d, failed %d; want %d, %d, %d",
			line.Submitted, line.Completed, line.Failed, goroutines*each, goroutines*each-fail, fail)
	}
	slot := attribute.Key(offtopotel.WorkerSlot)
	for _, w := range want {
		m, ok := got[w.name]
		if !ok {
			t.Errorf("%s missing", w.name)
			continue
		}
		if m.Unit != w.unit || m.Description == "" {
			t.Errorf("%s: unit %q, description %q; want unit %q and a description", w.name, m.Unit, m.Description, w.unit)
		}
		switch w.kind {
		case histogram:
			h, ok := m.Data.(metricdata.ExponentialHistogram[float64])
			if !ok || len(h.DataPoints) != 1 || h.Temporality != metricdata.CumulativeTemporality {
				t.Errorf("%s: %T %+v, want one cumulative exponential histogram point", w.name, m.Data, m.Data)
				continue
			}
			dp := h.DataPoints[0]
			if dp.Attributes.Len() != 0 || dp.Scale != offtopotel.Scale || dp.Count == 0 {
				t.Errorf("%s: attributes %v, scale %d, count %d", w.name, dp.Attributes.ToSlice(), dp.Scale, dp.Count)
			}
			var n uint64
			for _, c := range dp.PositiveBucket.Counts {
				n += c
			}
			if n+dp.ZeroCount != dp.Count {
				t.Errorf("%s: buckets hold %d, count %d", w.name, n+dp.ZeroCount, dp.Count)
			}
			if w.summary == nil {
				continue
			}
			if int64(dp.Count) != w.summary.Count {
				t.Errorf("%s: count %d, agent's %d", w.name, dp.Count, w.summary.Count)
			}
			lo, hi := p99(dp)
			agentP99 := math.NaN()
			if w.summary.P99 != nil {
				agentP99 = *w.summary.P99 / 1000
			}
			const jsonRounding = 0.5e-6 // p99_ms is to the microsecond
			t.Logf("%s: p99 bucket %.6f..%.6f s, agent's p99 %.6f s, count %d", w.name, lo, hi, agentP99, dp.Count)
			if !(agentP99 > lo-jsonRounding && agentP99 <= hi+jsonRounding) {
				t.Errorf("%s: the agent's p99 %.6f s is outside the p99 bucket %.6f..%.6f s", w.name, agentP99, lo, hi)
			}
		case counterInt, updown:
			s, ok := m.Data.(metricdata.Sum[int64])
			if !ok || len(s.DataPoints) != 1 || s.IsMonotonic != (w.kind == counterInt) {
				t.Errorf("%s: %T %+v, want one int64 sum, monotonic %v", w.name, m.Data, m.Data, w.kind == counterInt)
				continue
			}
			dp := s.DataPoints[0]
			if dp.Attributes.Len() != 0 || dp.Value != w.agent {
				t.Errorf("%s: %d %v, the agent's JSON says %d", w.name, dp.Value, dp.Attributes.ToSlice(), w.agent)
			}
		case counterFloat:
			s, ok := m.Data.(metricdata.Sum[float64])
			if !ok || !s.IsMonotonic {
				t.Errorf("%s: %T, want a monotonic float64 sum", w.name, m.Data)
				continue
			}
			var slots []int
			var sum float64
			for _, dp := range s.DataPoints {
				v, ok := dp.Attributes.Value(slot)
				if !ok || dp.Attributes.Len() != 1 {
					t.Errorf("%s: attributes %v, want %s alone", w.name, dp.Attributes.ToSlice(), slot)
					continue
				}
				slots = append(slots, int(v.AsInt64()))
				sum += dp.Value
			}
			slices.Sort(slots)
			// The tasks spun 1 ms each on a worker: at least that much busy
			// time in all (on CPU too, unless the machine preempted them).
			if !slices.Equal(slots, line.Slots) || (w.name == offtopotel.WorkerBusyTime && sum < 0.001*goroutines*each) {
				t.Errorf("%s: slots %v, %.4f s in all; the agent's slots %v", w.name, slots, sum, line.Slots)
			}
		}
	}
	for name := range got {
		if !slices.ContainsFunc(want, func(w instrument) bool {
			return w.name == name
		}) {
			t.Errorf("%s exported, not checked here", name)
		}
	}
}
