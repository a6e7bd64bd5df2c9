// Package pond meters a github.com/alitto/pond/v2 pool for offtop: queue
// wait, run time, per-worker busy and on-CPU time of its tasks, and
// resizing through Resize, so `offtop attach` shows and resizes it.
//
//	p := pond.NewPool(4)
//	m := offtoppond.Meter(p)
//	_ = offtoppond.Go(p, m, task) // instead of p.Go(task)
//	a, _ := agent.New(agent.Options{Pool: m, Control: true})
//
// It lives in its own module (github.com/offtop/offtop/contrib), so
// offtop's core module does not depend on pond.
package pond

import (
	"github.com/alitto/pond/v2"

	"github.com/offtop/offtop/pool"
)

// Meter returns a pool.Meter for p: its size is p.MaxConcurrency(), and
// Resize calls p.Resize with 1..pool.MaxSize (pond's 0 means unbounded,
// not offtop's inline; a size out of range is pool.ErrSize).
func Meter(p pond.Pool) *pool.Meter {
	return pool.NewMeter(pool.MeterOptions{
		Size:    p.MaxConcurrency,
		Resize:  func(n int) error { p.Resize(n); return nil },
		MinSize: 1,
	})
}

// Go submits task to p through m (p.Go), so m accounts for it; a refused
// task (a stopped pool, a full queue) is counted Rejected.
func Go(p pond.Pool, m *pool.Meter, task func()) error { return m.Submit(p.Go, task) }
