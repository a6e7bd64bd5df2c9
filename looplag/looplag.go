// Package looplag measures how late your loop runs things: Go's answer to
// Node's perf_hooks.monitorEventLoopDelay, without its 10 ms floor and
// without its coordinated omission.
//
// Start posts a callback on your single-goroutine loop (the Post you
// give) every Resolution; its lateness is when it ran minus when it was
// due, and the due times are t0 + k*Resolution, a fixed schedule (never a
// time.Ticker, which drops ticks silently). Idle lateness reads near 0,
// not near the resolution (monitorEventLoopDelay counts the resolution in
// every sample). A loop blocked for 1 s at a 10 ms resolution is recorded
// as about 100 samples (the ones a request arriving at a random moment
// would have seen: 990 ms, 980 ms, ... 10 ms), not one: that is the
// coordinated-omission correction, in Corrected. Raw keeps the samples as
// taken. StartFree measures the same on a free goroutine: how long a
// runnable goroutine of this process waits to run.
//
// # Units and range
//
// Every figure is a time.Duration; percentiles have 2 significant figures
// (within 1% above 51 us) and values above 100 s are clamped. Window
// figures cover the last Options.Window (DefaultWindow by default); the *All ones
// everything since Reset. Each is a latency.Summary (package latency,
// shared with pool): one with Count 0 has no data, its durations are 0 and
// mean "n/a", not zero lateness.
//
// # Concurrency
//
// Stats, Reset and Stop are safe for concurrent use; Stop is safe twice
// and returns once the probe's goroutine has exited. Post must not block
// and must run fn later on your loop; the monitor never runs anything else
// there.
package looplag

import (
	"time"

	"github.com/offtop/offtop/internal/probe"
	"github.com/offtop/offtop/latency"
)

// Defaults of Options' zero fields.
const (
	// DefaultResolution is the probe period, as Node's
	// monitorEventLoopDelay default.
	DefaultResolution = 10 * time.Millisecond
	// DefaultWindow is the span of the sliding figures.
	DefaultWindow = latency.DefaultWindow
)

// Options configure a Monitor. The zero value is usable.
type Options struct {
	// Resolution is the probe's period (DefaultResolution when 0 or
	// negative; a shorter one is raised to 100 us). Each period costs
	// about 15 us of CPU: 5% of a core at 1 ms.
	Resolution time.Duration
	// Window is the span of the sliding figures (DefaultWindow when 0 or
	// negative).
	Window time.Duration
}

// Monitor is a running lateness probe. Make one with Start or StartFree.
type Monitor struct{ p *probe.LagProbe }

func (o Options) defaults() Options {
	if o.Resolution <= 0 {
		o.Resolution = DefaultResolution
	}
	o.Resolution = max(o.Resolution, 100*time.Microsecond)
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	return o
}

// Start measures the loop that post runs callbacks on. It panics when
// post is nil.
func Start(post func(fn func()), o Options) *Monitor {
	if post == nil {
		panic("looplag: Start needs a post function (StartFree measures a free goroutine)")
	}
	o = o.defaults()
	return &Monitor{probe.StartLagProbe(post, o.Resolution, o.Window)}
}

// StartFree measures a free goroutine of this process: scheduling delay.
func StartFree(o Options) *Monitor {
	o = o.defaults()
	return &Monitor{probe.StartLagProbe(nil, o.Resolution, o.Window)}
}

// Stats is what a Monitor has measured.
type Stats struct {
	// Corrected and Raw lateness over the window; CorrectedAll and RawAll
	// since Reset (or Start). Count is samples, corrected ones included;
	// Max is the largest lateness, the same in Corrected and Raw (each
	// added sample is shorter than the one it stands for).
	Corrected, Raw, CorrectedAll, RawAll latency.Summary
	// Missed counts due times skipped because a sample ran past them.
	Missed int64
	// Stalled is how late the sample in flight is now, when more than one
	// Resolution: the loop has been blocked that long and still is (the
	// histograms cannot show it until the sample runs). 0 otherwise.
	Stalled time.Duration
}

// Stats reads the monitor.
func (m *Monitor) Stats() Stats {
	s := m.p.Stats()
	return Stats{Corrected: s.Corrected, Raw: s.Raw,
		CorrectedAll: s.CorrectedAll, RawAll: s.RawAll,
		Missed: s.Missed, Stalled: s.Stalled}
}

// Reset empties the since-reset figures (the window ages out by itself).
func (m *Monitor) Reset() { m.p.Reset() }

// Stop ends the probe; Stats stays readable.
func (m *Monitor) Stop() { m.p.Stop() }
