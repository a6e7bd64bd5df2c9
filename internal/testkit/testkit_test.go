package testkit

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestRunEachRunsUpToLimitAtOnce: every case runs, two of them at once
// (each waits until two are in), never more than the limit.
func TestRunEachRunsUpToLimitAtOnce(t *testing.T) {
	var in, most atomic.Int32
	var ran [6]atomic.Bool
	two := make(chan struct{})
	var once sync.Once
	RunEach(t, len(ran), 2, func(i int) string { return fmt.Sprint(i) }, func(t *testing.T, i int) {
		n := in.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if n == 2 {
			once.Do(func() { close(two) })
		}
		Recv(t, "two cases at once", 0, two)
		ran[i].Store(true)
		in.Add(-1)
	})
	for i := range ran {
		if !ran[i].Load() {
			t.Errorf("case %d did not run", i)
		}
	}
	if m := most.Load(); m != 2 {
		t.Errorf("%d cases at once, want the limit 2", m)
	}
}
