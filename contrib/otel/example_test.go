package otel_test

import (
	"context"
	"fmt"
	"slices"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/offtop/offtop/agent"
	offtopotel "github.com/offtop/offtop/contrib/otel"
	"github.com/offtop/offtop/pool"
)

// A program wires the agent to its own reader (here a ManualReader; a
// PeriodicReader over its exporter in production): the Producer on the
// reader for the histograms, Register on the MeterProvider for the rest.
func Example() {
	p, _ := pool.New(pool.Options{Size: 2})
	defer p.Close()
	a, _ := agent.New(agent.Options{Pool: p, Logf: func(string, ...any) {}})
	defer a.Close()

	reader := sdkmetric.NewManualReader(sdkmetric.WithProducer(offtopotel.NewProducer(a)))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	reg, _ := offtopotel.Register(a, mp)
	defer reg.Unregister()

	_ = p.Do(func() {})
	var rm metricdata.ResourceMetrics
	_ = reader.Collect(context.Background(), &rm)
	var names []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != offtopotel.WorkerCPUTime { // absent without a thread clock
				names = append(names, m.Name+" "+m.Unit)
			}
		}
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Println(n)
	}
	// Output:
	// offtop.loop.lateness s
	// offtop.loop.lateness_raw s
	// offtop.pool.task.canceled {task}
	// offtop.pool.task.completed {task}
	// offtop.pool.task.failed {task}
	// offtop.pool.task.queued {task}
	// offtop.pool.task.rejected {task}
	// offtop.pool.task.run s
	// offtop.pool.task.running {task}
	// offtop.pool.task.submitted {task}
	// offtop.pool.task.timed_out {task}
	// offtop.pool.task.wait s
	// offtop.pool.worker.busy.time s
	// offtop.pool.workers {worker}
}
