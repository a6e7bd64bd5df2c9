// Package link lets offtop's public packages hand each other the engine
// behind their types without exporting it: package pool sets PoolEngine
// in its init, and package agent, which imports pool, reads it.
package link

import ipool "github.com/offtop/offtop/internal/pool"

// PoolEngine returns the engine of a *pool.Pool (the public one), or nil
// for a nil one. Set once, by package pool's init.
var PoolEngine func(p any) *ipool.Pool
