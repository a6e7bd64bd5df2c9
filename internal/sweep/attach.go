package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/load"
	"github.com/offtop/offtop/internal/millis"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sizing"
)

// Attached is a running program a sweep resizes through its agent
// (Config.Attach) instead of running a scenario: each size is set with a
// SetWorkers action, held under Load, and read from the agent's size row
// of the measured hold (after a Reset) and from the load's client.
type Attached struct {
	// Addr is the agent's address as given, for the table and the JSON.
	Addr string
	// Src is the agent's client (remote.Client): its Snapshots and the
	// actions it posts.
	Src session.Source
	// Load runs at every size, begun before the sweep and left running;
	// its Mark starts each hold's client figures.
	Load *load.Load
	// Target is the load target whose p99 picks the size (one of Load's
	// Spec), Route the program's route the middleware records it under
	// ("" when none is known).
	Target, Route string

	// OnHold, when set, is called as each measured hold of workers
	// begins (a live search shows it).
	OnHold func(workers int, hold time.Duration)
	// OnRow, when set, is called with the agent's size row as each
	// measured hold left it (the next hold's Reset clears it there) and
	// the hold's headline: Target's client p99 in ms, nil when no request
	// of it ended in the hold.
	OnRow func(size session.SizeRow, headlineP99MS *float64)

	// start is the program's pool size before the sweep, plus one (0:
	// not read yet), for RestoreNow on another goroutine.
	start atomic.Int64
}

// RestoreNow sets the program's pool back to its size before the sweep
// (a process exiting at once), waiting at most limit for the program's
// answer; nil when the sweep has not begun.
func (a *Attached) RestoreNow(limit time.Duration) error {
	n := a.start.Load() - 1
	if n < 0 {
		return nil
	}
	var j AttachJSON
	a.restore(int(n), &j, limit)
	if !j.Restored {
		return errors.New(j.RestoreError)
	}
	return nil
}

// RestoreLine says whether the sweep set the program's pool back: "pool
// set back to 2 workers, its size before the sweep", or NOT and why.
func (j *AttachJSON) RestoreLine() string {
	if j.Restored {
		return fmt.Sprintf("pool set back to %s, its size before the sweep", sizing.SizeName(j.StartWorkers))
	}
	return fmt.Sprintf("pool NOT set back to %s, its size before the sweep: %s", sizing.SizeName(j.StartWorkers), j.RestoreError)
}

// AttachJSON is a sweep's attached program, in its JSON (the field
// attach; null for a scenario's sweep).
type AttachJSON struct {
	Addr string `json:"addr"`
	// Load is the load's SPEC; Target the one the rows' headline and
	// client figures are of, Route its route in the program's endpoints.
	Load   string `json:"load"`
	Target string `json:"target"`
	Route  string `json:"route"`
	// StartWorkers is the program's pool size before the sweep, set back
	// at its end; Restored says that succeeded (false with RestoreError).
	StartWorkers int    `json:"start_workers"`
	Restored     bool   `json:"restored"`
	RestoreError string `json:"restore_error,omitempty"`
}

// Keys of an attached sweep's Extra, for the chosen target: the
// middleware's p99 of its route at the size (server side, the handler's
// time), the client's p99 of its requests due in the hold (from the due
// time: the headline), and the client's requests with no answer.
const (
	KeyServerP99 = "server_p99_ms"
	KeyClientP99 = "client_p99_ms"
	KeyErrors    = "client_errors"
)

// attachKeys are an attached sweep's Columns.
var attachKeys = []string{KeyServerP99, KeyClientP99, KeyErrors}

// ErrGone is a sweep's error when the attached program's stream broke.
var ErrGone = errors.New("the attached program went away")

// RestoreTimeout bounds the wait for the action that sets an attached
// program's pool back to its starting size, so a sweep stopped by a
// signal exits within 2 s though the program does not answer (stopped,
// or gone); the action may still take effect when it does.
const RestoreTimeout = 1500 * time.Millisecond

// restore sets the program's pool back to n, waiting at most limit for
// the answer, and says so in j.
func (a *Attached) restore(n int, j *AttachJSON, limit time.Duration) {
	select {
	case err := <-a.Src.Post(session.Action{Kind: session.SetWorkers, N: n}):
		j.Restored = err == nil
		if err != nil {
			j.RestoreError = err.Error()
		}
	case <-time.After(limit):
		j.RestoreError = "no answer within " + limit.String() + " (it may still take effect when the program answers)"
	}
}

// post applies one action, or returns ctx's error first.
func (a *Attached) post(ctx context.Context, act session.Action) error {
	select {
	case err := <-a.Src.Post(act):
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runOne measures the program at workers: set the size, warm up for warm
// under the load, reset the agent's figures and mark the load's, hold
// for c.Duration, then read the size row the hold filled.
func (a *Attached) runOne(ctx context.Context, c Config, workers int, warm time.Duration) (Row, session.Snapshot, error) {
	row := Row{Workers: workers, Balanced: true}
	if err := a.post(ctx, session.Action{Kind: session.SetWorkers, N: workers}); err != nil {
		return row, session.Snapshot{}, err
	}
	var last session.Snapshot
	var m sizing.Meter
	// Each new sample of the agent (Snapshot, polled at its interval: a
	// dashboard may read Samples meanwhile) until d has passed.
	every := max(time.Duration(a.Src.Snapshot().Interval), 10*time.Millisecond)
	hold := func(d time.Duration, meter bool) error {
		end := time.After(d)
		tick := time.NewTicker(every)
		defer tick.Stop()
		var seen session.Seconds = -1
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
				snap := a.Src.Snapshot()
				if !snap.Disconnected.IsZero() {
					return cmp.Or(ctx.Err(), fmt.Errorf("%w (%s)", ErrGone, a.Addr))
				}
				if snap.Elapsed == seen {
					continue
				}
				seen = snap.Elapsed
				if !snap.Balanced() {
					row.Balanced = false
				}
				if meter {
					m.Add(time.Duration(snap.Elapsed), snap.Submitted, snap.WorkerBusy)
				}
				last = snap
			case <-end:
				return nil
			}
		}
	}
	if err := hold(warm, false); err != nil {
		return row, last, err
	}
	if err := a.post(ctx, session.Action{Kind: session.Reset}); err != nil {
		return row, last, err
	}
	a.Load.Mark()
	row.Balanced = true // the warm-up's samples are not the row's
	if a.OnHold != nil {
		a.OnHold(workers, c.Duration)
	}
	if err := hold(c.Duration, true); err != nil {
		return row, last, err
	}
	// The requests due in the hold, each to its end: a stall at the
	// hold's end is in the figures, not cut off.
	a.Load.EndHold()
	a.Load.WaitHeld(ctx, load.Timeout+time.Second, every/4)
	if err := ctx.Err(); err != nil { // stopped: this row is not finished
		return row, last, err
	}
	held := a.Load.Held()
	// The newest sample: the size row as the hold left it.
	last = a.Src.Snapshot()
	if !last.Disconnected.IsZero() {
		return row, last, fmt.Errorf("%w (%s)", ErrGone, a.Addr)
	}
	var size session.SizeRow
	if i := slices.IndexFunc(last.Sizes, func(r session.SizeRow) bool { return r.Current }); i >= 0 {
		size = last.Sizes[i]
	}
	if size.Workers != workers {
		return row, last, fmt.Errorf("%w: the program's pool is at %d workers, not the %d set (another client resized it?)", session.ErrAction, size.Workers, workers)
	}
	if a.Route == "" { // the middleware's route of the target, once it has recorded one
		for _, t := range a.Load.Figures(last.Endpoints).Targets {
			if t.Target == a.Target {
				a.Route = t.Route
			}
		}
	}
	var client load.Held
	if i := slices.IndexFunc(held, func(h load.Held) bool { return h.Target == a.Target }); i >= 0 {
		client = held[i]
	}
	a.fill(&row, last, size, client)
	row.ArrivalPerS, row.ServiceMS = m.ArrivalPerS(), ptr(m.ServiceMS(row.ThroughputPerS))
	if a.OnRow != nil {
		a.OnRow(size, row.Size.HeadlineP99MS)
	}
	return row, last, nil
}

// fill computes an attached run's row from the agent's size row of the
// hold and the client's figures of the target: the headline is the
// client's p99 of the target, named after it.
func (a *Attached) fill(row *Row, last session.Snapshot, size session.SizeRow, client load.Held) {
	size.Current = false
	size.HeadlineName = session.ClientHeadline(a.Target)
	size.Headline = client.Latency
	fill(row, last, size, hist.NewHistogram(), nil)
	row.TaskP99MS = nil // the agent sends no task histogram
	row.Extra = map[string]*float64{KeyServerP99: nil, KeyClientP99: row.Size.HeadlineP99MS, KeyErrors: ptr(float64(client.Errors))}
	if s, ok := size.Served[a.Route]; ok && s.Count > 0 {
		row.Extra[KeyServerP99] = millis.Of(s.P99)
	}
}

// runAttached runs c's sweep on c.Attach: Run's loop with the program's
// sizes, the starting size set back at the end however the sweep ends.
func runAttached(ctx context.Context, c Config, warm time.Duration, progress io.Writer, res *Result) error {
	a := c.Attach
	start := a.Src.Snapshot()
	if !start.Disconnected.IsZero() { // its figures, the pool size too, are unknown: nothing to set back
		return fmt.Errorf("%w (%s): disconnected, no sweep", ErrGone, a.Addr)
	}
	a.start.Store(int64(start.Workers) + 1)
	res.Scenario = start.Scenario
	res.Columns = slices.Clone(attachKeys)
	res.Attach = &AttachJSON{Addr: a.Addr, Load: a.Load.Spec().String(), Target: a.Target, Route: a.Route, StartWorkers: start.Workers}
	defer a.restore(start.Workers, res.Attach, RestoreTimeout)
	k := max(c.Repeat, 1)
	res.runs = make([][]Row, len(c.Workers))
	for j, i := range Schedule(len(c.Workers), k) {
		n := c.Workers[i]
		fmt.Fprintf(progress, "sweep: %s (%s) at %s under %s (run %d/%d, repeat %d/%d), %v after a warm-up of %v\n",
			res.Scenario, a.Addr, sizing.SizeName(n), res.Attach.Load, j+1, len(c.Workers)*k, j/len(c.Workers)+1, k, c.Duration, warm)
		row, snap, err := a.runOne(ctx, c, n, warm)
		if err != nil {
			// A stop wins over what it cut short (a program gone
			// meanwhile): the sweep is interrupted, its rows so far out.
			return cmp.Or(ctx.Err(), err)
		}
		res.GOMAXPROCS, res.NumCPU = snap.GOMAXPROCS, snap.NumCPU
		if snap.CPULimit > 0 {
			v := float64(snap.CPULimit)
			res.CPULimit = &v
		}
		res.runs[i] = append(res.runs[i], row)
		if res.Attach.Route == "" {
			res.Attach.Route = a.Route
		}
	}
	return nil
}
