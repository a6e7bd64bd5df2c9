//go:build !linux

package pool

import "time"

const onCPUSupported = false

func measureCPU(fn func()) (time.Duration, bool) {
	fn()
	return 0, false
}
