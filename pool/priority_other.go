//go:build !linux

package pool

const priorityKnown = false

func lowerThread() (int, bool) { return 0, false }
