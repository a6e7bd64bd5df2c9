package agent

import (
	"errors"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
)

// TestNewRefusesBadPeriods: periods the sampler cannot run at are
// refused by New as a config error, before anything starts.
func TestNewRefusesBadPeriods(t *testing.T) {
	for _, o := range []Options{
		{Interval: -time.Second}, {Interval: 500 * time.Microsecond},
		{Resolution: 50 * time.Microsecond}, {Interval: time.Second, Window: 500 * time.Millisecond},
	} {
		a, err := New(o)
		if err == nil {
			a.Close()
			t.Errorf("%+v: accepted", o)
		} else if !errors.Is(err, session.ErrConfig) {
			t.Errorf("%+v: %v, want a config error", o, err)
		}
	}
}
