//go:build !linux

package scenarios

import "time"

// onCPU runs fn; off Linux there is no thread CPU clock offtop reads, so the
// time is unknown.
func onCPU(fn func()) (time.Duration, bool) {
	fn()
	return 0, false
}
