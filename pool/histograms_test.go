package pool

import "testing"

// TestLatencyHistogramsCountEveryFinishedTask: the histograms hold every
// task Do has returned for, without a Stats first (workers keep their
// tasks' latencies until a batch fills), the counts Stats then reads.
func TestLatencyHistogramsCountEveryFinishedTask(t *testing.T) {
	p, err := New(Options{Size: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const n = 10 // under a batch per worker
	for range n {
		if err := p.Do(func() {}); err != nil {
			t.Fatal(err)
		}
	}
	wait, run := p.LatencyHistograms()
	if wait.TotalCount() != n || run.TotalCount() != n {
		t.Fatalf("wait %d, run %d tasks; want %d", wait.TotalCount(), run.TotalCount(), n)
	}
	st := p.Stats()
	if st.WaitAll.Count != n || st.RunAll.Count != n {
		t.Fatalf("Stats: wait %d, run %d; want %d", st.WaitAll.Count, st.RunAll.Count, n)
	}
}
