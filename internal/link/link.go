// Package link lets offtop's public packages hand each other the engine
// behind their types without exporting it: package pool sets PoolEngine
// in its init, and package agent, which imports pool, reads it. It
// imports only the engine's pool, so package pool stays light.
package link

import ipool "github.com/offtop/offtop/internal/pool"

// Engine is a pool as offtop samples and resizes it: *ipool.Pool is one,
// and so is package pool's Meter over a pool of the program's own.
type Engine interface {
	Stats() ipool.Stats
	Counts() ipool.Counts
	Resize(n int) error
	ResetLatency()
}

// PoolEngine returns the Engine of one of package pool's Accounted values
// (a *Pool or a *Meter), or nil (a nil interface) for none. Set once, by
// package pool's init.
var PoolEngine func(p any) Engine
