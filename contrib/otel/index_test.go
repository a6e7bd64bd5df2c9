package otel

import (
	"context"
	"math"
	"testing"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/pool"
)

// TestIndexHoldsItsBounds: a bucket's upper bound is in the bucket, its
// lower bound in the one below, and a value just above the lower bound
// in the bucket, over the HDR histograms' range (1 us to 100 s).
func TestIndexHoldsItsBounds(t *testing.T) {
	for i := index(1e-6) - 1; i <= index(100)+1; i++ {
		lo, hi := Bounds(int32(i))
		if index(hi) != i || index(lo) != i-1 || index(math.Nextafter(lo, math.Inf(1))) != i {
			t.Fatalf("bucket %d (%g, %g]: index(hi) %d, index(lo) %d, index(lo+) %d",
				i, lo, hi, index(hi), index(lo), index(math.Nextafter(lo, math.Inf(1))))
		}
	}
}

// TestResetStartsAgain: the task histograms start at the first read and,
// after the pool's latency reset, count from zero from the next, and without a pool
// Register makes nothing and the Producer reads the Loop alone.
func TestResetStartsAgain(t *testing.T) {
	p, err := pool.New(pool.Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a, err := agent.New(agent.Options{Pool: p, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := p.Do(func() {}); err != nil {
		t.Fatal(err)
	}
	pr := NewProducer(a)
	wait := func() metricdata.ExponentialHistogramDataPoint[float64] {
		sm, err := pr.Produce(context.Background())
		if err != nil || len(sm) != 1 {
			t.Fatalf("Produce: %v, %d scopes", err, len(sm))
		}
		for _, m := range sm[0].Metrics {
			if m.Name == TaskWait {
				return m.Data.(metricdata.ExponentialHistogram[float64]).DataPoints[0]
			}
		}
		t.Fatalf("no %s", TaskWait)
		return metricdata.ExponentialHistogramDataPoint[float64]{}
	}
	first, again := wait(), wait()
	p.ResetLatency()
	after := wait()
	if first.Count != 1 || again.Count != 1 || !first.StartTime.Equal(first.Time) || !again.StartTime.Equal(first.StartTime) {
		t.Fatalf("before the reset: counts %d, %d, starts %v, %v at %v: want 1, 1, both the first read's", first.Count, again.Count,
			first.StartTime, again.StartTime, first.Time)
	}
	if after.Count != 0 || !after.StartTime.Equal(after.Time) {
		t.Fatalf("after the reset: count %d, start %v at %v: want 0, started at that read", after.Count, after.StartTime, after.Time)
	}

	bare, err := agent.New(agent.Options{Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	reg, err := Register(bare, nil) // never asks the provider
	if err != nil || reg.Unregister() != nil {
		t.Fatalf("Register without a pool: %v", err)
	}
	sm, _ := NewProducer(bare).Produce(context.Background())
	if len(sm[0].Metrics) != 2 || sm[0].Metrics[0].Name != LoopLateness || sm[0].Metrics[1].Name != LoopLatenessRaw {
		t.Fatalf("without a pool: %+v", sm[0].Metrics)
	}
}
