package pool

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/offtop/offtop/internal/cpuclock"
	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/latency"
)

// ErrNotResizable is what Meter.Resize returns without MeterOptions.Resize.
var ErrNotResizable = errors.New("pool: this metered pool has no Resize")

// MeterOptions describe the pool a Meter accounts for. The zero value is
// usable: a pool the Meter cannot resize, whose size is the most tasks
// seen running at once.
type MeterOptions struct {
	// Size reports the pool's size now (its cap on running tasks: ants'
	// Cap, pond's MaxConcurrency). nil: the most tasks seen running at once.
	Size func() int
	// Resize sets the pool's size (ants' Tune, pond's Resize): offtop
	// attach's keys call it, with MinSize <= n <= MaxSize. nil: Resize
	// returns ErrNotResizable.
	Resize func(n int) error
	// MinSize is the least size Resize takes (1 for a pool with no
	// inline size 0, as ants and pond); 0 when 0.
	MinSize int
	// Window is the span of the sliding latency window
	// (latency.DefaultWindow when 0).
	Window time.Duration
}

// Meter accounts for a pool you already have: wrap each task as you
// submit it (Wrap or Submit), and the Meter measures its queue wait
// (submit to start), its run time, and the busy and on-CPU time of the
// worker that ran it, as Pool does for its own workers. Give it to
// offtop's agent (agent.Options.Pool) to see that pool on the dashboard.
//
// A foreign pool does not say which worker runs a task, so a Meter's
// Workers are places: a task that starts takes the lowest place free and
// leaves it when it ends, so with N workers busy, places 0..N-1 are busy.
// On-CPU time is read as Pool reads it (the task runs locked to its OS
// thread, and the thread's CPU clock is read around it), which costs
// about two clock reads per task. A task that panics is counted Failed and
// the panic goes on to your pool. Safe for concurrent use.
type Meter struct {
	o     MeterOptions
	start time.Time

	mu sync.Mutex // guards the fields below
	// places are the running-task places; a place is busy while a task
	// holds it (running).
	places                                        []place
	submitted, completed, failed, running, queued int64
	rejected                                      int64
	wait, run, total                              *hist.Recorder
	maxRunning                                    int
}

// place is one running-task place's accounting.
type place struct {
	busy, onCPU       time.Duration
	onCPUKnown        bool
	running           bool
	since             time.Time // start of the task in progress
	completed, failed int64
}

// NewMeter returns a Meter for the pool o describes.
func NewMeter(o MeterOptions) *Meter {
	if o.Window <= 0 {
		o.Window = latency.DefaultWindow
	}
	return &Meter{o: o, start: time.Now(),
		wait:  hist.NewRecorder(o.Window, nil),
		run:   hist.NewRecorder(o.Window, nil),
		total: hist.NewRecorder(o.Window, nil)}
}

// Wrap counts fn as submitted now and returns the task to hand your pool.
// Run it exactly once; if your pool refuses it, call Submit instead, which
// uncounts a refused task.
func (m *Meter) Wrap(fn func()) func() {
	at := time.Now()
	m.mu.Lock()
	m.submitted++
	m.queued++
	m.mu.Unlock()
	return func() { m.runTask(fn, at) }
}

// Submit hands fn, wrapped, to submit (your pool's: ants' Submit, pond's
// Go) and returns its error; a refused task counts as Rejected, not
// submitted.
func (m *Meter) Submit(submit func(task func()) error, fn func()) error {
	err := submit(m.Wrap(fn))
	if err != nil {
		m.mu.Lock()
		m.submitted--
		m.queued--
		m.rejected++
		m.mu.Unlock()
	}
	return err
}

func (m *Meter) runTask(fn func(), at time.Time) {
	start := time.Now()
	m.mu.Lock()
	m.queued--
	m.running++
	i := 0
	for i < len(m.places) && m.places[i].running {
		i++
	}
	if i == len(m.places) {
		m.places = append(m.places, place{})
	}
	m.places[i].running, m.places[i].since = true, start
	m.maxRunning = max(m.maxRunning, int(m.running))
	m.mu.Unlock()

	ok := false
	var cpu time.Duration
	var cpuOK bool
	defer func() {
		end := time.Now()
		m.mu.Lock()
		p := &m.places[i]
		p.running = false
		p.busy += end.Sub(start)
		if cpuOK {
			p.onCPU += cpu
			p.onCPUKnown = true
		}
		m.running--
		if ok {
			m.completed++
			p.completed++
		} else {
			m.failed++
			p.failed++
		}
		m.mu.Unlock()
		m.wait.Record(int64(start.Sub(at)))
		m.run.Record(int64(end.Sub(start)))
		m.total.Record(int64(end.Sub(at)))
	}()
	cpu, cpuOK = cpuclock.Measure(func() {
		fn()
		ok = true
	})
}

// size is the pool's size as the Meter knows it.
func (m *Meter) size() int {
	if m.o.Size != nil {
		return m.o.Size()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.maxRunning
}

// Resize sets the pool's size through MeterOptions.Resize.
func (m *Meter) Resize(n int) error {
	if m.o.Resize == nil {
		return ErrNotResizable
	}
	if n < m.o.MinSize || n > MaxSize {
		return fmt.Errorf("%w: %d is out of this pool's %d..%d", ErrSize, n, m.o.MinSize, MaxSize)
	}
	return m.o.Resize(n)
}

// ResetLatency empties the since-reset latency histograms.
func (m *Meter) ResetLatency() {
	m.wait.Reset()
	m.run.Reset()
	m.total.Reset()
}

// Stats reads the Meter: Workers are the places (see Meter), as many as
// the pool's size, or more while more tasks run. The in-progress task's
// time counts in Busy (not yet in OnCPU).
func (m *Meter) Stats() Stats {
	size := m.size()
	now := time.Now()
	m.mu.Lock()
	s := Stats{At: now, Size: size, Counts: m.countsLocked()}
	n := max(size, 0)
	for i := range m.places {
		if m.places[i].running {
			n = max(n, i+1)
		}
	}
	s.Workers = make([]Worker, n)
	for i := range s.Workers {
		w := Worker{Slot: i, Started: m.start, OnCPUKnown: cpuclock.Known}
		if i < len(m.places) {
			p := m.places[i]
			w.Busy, w.OnCPU, w.Running = p.busy, p.onCPU, p.running
			w.Completed, w.Failed = p.completed, p.failed
			if p.running {
				w.Busy += now.Sub(p.since)
			}
		}
		s.Workers[i] = w
	}
	m.mu.Unlock()
	s.Wait, s.Run, s.Total = m.wait.Window(), m.run.Window(), m.total.Window()
	s.WaitAll, s.RunAll, s.TotalAll = m.wait.Total(), m.run.Total(), m.total.Total()
	return s
}

func (m *Meter) countsLocked() Counts {
	return Counts{Submitted: m.submitted, Completed: m.completed, Failed: m.failed,
		Running: m.running, Queued: m.queued, Rejected: m.rejected}
}

// Counts reads the Meter's counts under one lock.
func (m *Meter) Counts() Counts {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.countsLocked()
}

// Inlines reports whether size 0 runs tasks: a Meter whose MinSize is 0.
func (m *Meter) Inlines() bool { return m.o.MinSize <= 0 }
