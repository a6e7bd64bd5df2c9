package lifecycle

import (
	"time"

	"github.com/offtop/offtop/internal/clock"
)

// ForwardSamples calls send for each signal on sampled until stop closes,
// at least gap apart on clk (0: as they come): signals that come sooner
// wait, and those that come while one waits make one send (sampled holds
// one), so the model reads the newest sample once.
func ForwardSamples(sampled <-chan struct{}, stop <-chan struct{}, gap time.Duration, clk clock.Clock, send func()) {
	var last time.Time
	for {
		select {
		case <-stop:
			return
		case <-sampled:
		}
		if wait := gap - clk.Now().Sub(last); gap > 0 && !last.IsZero() && wait > 0 {
			select {
			case <-stop:
				return
			case <-clk.After(wait):
			}
		}
		last = clk.Now()
		send()
	}
}
