package session

import (
	"math"
	"runtime"
	"testing"

	"github.com/offtop/offtop/pool"
)

func TestAddClamped(t *testing.T) {
	for _, c := range []struct{ x, d, lo, hi, want int }{
		{2, math.MaxInt64, 0, 256, 256},
		{2, math.MinInt64, 0, 256, 0},
		{256, math.MaxInt64, 0, 256, 256},
		{0, math.MinInt64, 0, 256, 0},
		{math.MaxInt64, math.MaxInt64, -256, 256, 256},
		{math.MinInt64, math.MinInt64, -256, 256, -256},
		{math.MinInt64, math.MaxInt64, 0, 256, 0}, // -1
		{math.MaxInt64, math.MinInt64, -256, 256, -1},
		{-5, math.MinInt64 + 4, -256, 256, -256},
		{2, -1, 0, 256, 1},
		{2, 300, 0, 256, 256},
	} {
		if got := addClamped(c.x, c.d, c.lo, c.hi); got != c.want {
			t.Errorf("addClamped(%d, %d, %d, %d) = %d, want %d", c.x, c.d, c.lo, c.hi, got, c.want)
		}
	}
}

// TestActionsSaturate: an action's n at the ends of int64 ends at the end
// of its range, applied one at a time or folded with the next.
func TestActionsSaturate(t *testing.T) {
	p, s := programSessionOf(t, pool.Options{Size: 2, Inline: func(fn func()) { go fn() }}) // size 0 allowed
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range []struct {
		name string
		acts []Action
		size int // the pool's size after, -1: not a resize
		gmp  int // GOMAXPROCS after, 0: not one
	}{
		{"add MaxInt64", []Action{{Kind: AddWorkers, N: math.MaxInt64}}, MaxWorkers, 0},
		{"add MinInt64", []Action{{Kind: AddWorkers, N: math.MinInt64}}, 0, 0},
		{"folded adds MaxInt64", []Action{{Kind: SetWorkers, N: 2}, {Kind: AddWorkers, N: math.MaxInt64}, {Kind: AddWorkers, N: math.MaxInt64}}, MaxWorkers, 0},
		{"folded adds MinInt64", []Action{{Kind: SetWorkers, N: 2}, {Kind: AddWorkers, N: math.MinInt64}, {Kind: AddWorkers, N: math.MinInt64}}, 0, 0},
		{"folded set then MaxInt64", []Action{{Kind: SetWorkers, N: MaxWorkers}, {Kind: AddWorkers, N: math.MaxInt64}}, MaxWorkers, 0},
		{"folded set then MinInt64", []Action{{Kind: SetWorkers, N: 3}, {Kind: AddWorkers, N: math.MinInt64 + 1}, {Kind: AddWorkers, N: -1}}, 0, 0},
		{"gomaxprocs MaxInt64", []Action{{Kind: AddGOMAXPROCS, N: math.MaxInt64}}, -1, runtime.NumCPU()},
		{"gomaxprocs MinInt64", []Action{{Kind: AddGOMAXPROCS, N: math.MinInt64}}, -1, 1},
	} {
		var res []<-chan error
		for _, a := range c.acts { // posted back to back: resizes fold
			res = append(res, s.Post(a))
		}
		for i, r := range res {
			if err := <-r; err != nil {
				t.Fatalf("%s: action %d: %v", c.name, i, err)
			}
		}
		if c.size >= 0 {
			if n := p.Stats().Size; n != c.size {
				t.Errorf("%s: pool size %d, want %d", c.name, n, c.size)
			}
		}
		if c.gmp > 0 {
			if n := runtime.GOMAXPROCS(0); n != c.gmp {
				t.Errorf("%s: GOMAXPROCS %d, want %d", c.name, n, c.gmp)
			}
		}
	}
}
