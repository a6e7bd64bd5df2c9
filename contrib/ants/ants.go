// Package ants meters a github.com/panjf2000/ants/v2 pool for offtop:
// queue wait, run time, per-worker busy and on-CPU time of its tasks, and
// resizing through Tune, so `offtop attach` shows and resizes it.
//
//	p, _ := ants.NewPool(4)
//	m := offtopants.Meter(p)
//	_ = offtopants.Submit(p, m, task) // instead of p.Submit(task)
//	a, _ := agent.New(agent.Options{Pool: m, Control: true})
//
// It lives in its own module (github.com/offtop/offtop/contrib), so
// offtop's core module does not depend on ants.
package ants

import (
	"github.com/panjf2000/ants/v2"

	"github.com/offtop/offtop/pool"
)

// Meter returns a pool.Meter for p: its size is p.Cap(), and Resize calls
// p.Tune with 1..pool.MaxSize (ants has no size 0, offtop's inline; a
// size out of range is pool.ErrSize). ants ignores Tune for a
// pre-allocated or unbounded pool: the size then stays, and the dashboard
// shows it.
func Meter(p *ants.Pool) *pool.Meter {
	return pool.NewMeter(pool.MeterOptions{
		Size:    p.Cap,
		Resize:  func(n int) error { p.Tune(n); return nil },
		MinSize: 1,
	})
}

// Submit submits task to p through m, so m accounts for it; it returns
// p.Submit's error (a refused task is counted Rejected).
func Submit(p *ants.Pool, m *pool.Meter, task func()) error { return m.Submit(p.Submit, task) }
