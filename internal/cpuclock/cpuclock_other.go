//go:build !linux

package cpuclock

import "time"

// Known reports whether this OS gives per-thread CPU clocks: not here.
const Known = false

// Self reports false: no thread CPU clock here.
func Self() (time.Duration, bool) { return 0, false }

// Thread reports false: no thread CPU clock here.
func Thread(int) (time.Duration, bool) { return 0, false }

// Tid returns 0: thread ids are not read here.
func Tid() int { return 0 }
