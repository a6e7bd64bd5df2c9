//go:build !linux

package timerfd

import (
	"errors"
	"time"
)

// Timer exists on Linux only; elsewhere callers wait on a runtime timer.
type Timer struct{}

// New returns errors.ErrUnsupported: there is no timerfd here.
func New() (*Timer, error) { return nil, errors.ErrUnsupported }

// Sleep returns errors.ErrUnsupported.
func (*Timer) Sleep(time.Duration) error { return errors.ErrUnsupported }

// Close does nothing.
func (*Timer) Close() {}
