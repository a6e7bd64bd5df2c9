package scenarios

import (
	"time"

	"github.com/offtop/offtop/internal/cpuclock"
)

// onCPU runs fn locked to its OS thread and returns the thread CPU time it
// took, and true (cpuclock.Measure).
func onCPU(fn func()) (time.Duration, bool) { return cpuclock.Measure(fn) }
