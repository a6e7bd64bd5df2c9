//go:build !linux

package probe

import (
	"errors"
	"time"
)

// timerFD exists on Linux only; elsewhere the probe waits on a runtime timer.
type timerFD struct{}

func newTimerFD() (*timerFD, error) { return nil, errors.ErrUnsupported }

func (*timerFD) sleep(time.Duration) error { return errors.ErrUnsupported }

func (*timerFD) close() {}
