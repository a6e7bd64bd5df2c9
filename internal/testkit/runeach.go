package testkit

import (
	"sync"
	"testing"
)

// RunEach runs f(t, i) for i in 0..n-1 as the subtest name(i), up to
// limit at once, and returns when all have ended. The subtests do not
// call t.Parallel, so go test's -parallel (GOMAXPROCS by default) does
// not bound them: it suits cases that wait on a process rather than use
// the CPU.
func RunEach(t *testing.T, n, limit int, name func(i int) string, f func(t *testing.T, i int)) {
	t.Helper()
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			t.Run(name(i), func(t *testing.T) { f(t, i) })
		}()
	}
	wg.Wait()
}
