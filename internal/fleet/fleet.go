// Package fleet is the data of `offtop attach ADDR ADDR...`: one agent
// client per process (a session.Source each, remote.Client in offtop),
// their samples merged into one stream, and their newest Snapshots read
// into one row per process (Rows), which the fleet view draws. Data flows
// one way: the members' readings, then Rows, then the view; an action goes
// the other way to one member only (Post).
package fleet

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/offtop/offtop/internal/session"
)

// Fleet reads its members. Make it with New.
type Fleet struct {
	addrs   []string
	members []session.Source
	samples chan session.Snapshot
	closed  chan struct{} // closed by Close once every member has closed
	wg      sync.WaitGroup
	once    sync.Once
}

// New reads members, members[i] the agent at addrs[i] (the two of one
// length), and merges their samples into Samples until every member's
// Samples has closed (Close closes them).
func New(addrs []string, members []session.Source) *Fleet {
	if len(addrs) != len(members) {
		panic(fmt.Sprintf("fleet: %d addresses, %d members", len(addrs), len(members)))
	}
	f := &Fleet{addrs: slices.Clone(addrs), members: slices.Clone(members),
		samples: make(chan session.Snapshot, 64*len(members)), closed: make(chan struct{})}
	f.wg.Add(len(members))
	for i, m := range f.members {
		go func() {
			defer f.wg.Done()
			for s := range m.Samples() {
				s.Remote = f.addrs[i]
				if !f.push(s) { // no one reads any more: the rest dropped
					return
				}
			}
		}()
	}
	go func() {
		f.wg.Wait()
		close(f.samples)
	}()
	return f
}

// push hands s to Samples, dropping the oldest there when it is full (a
// reader far behind), so a member's own buffer never fills and Samples
// holds at most 64 samples a member; false once Close has finished.
func (f *Fleet) push(s session.Snapshot) bool {
	for {
		select {
		case <-f.closed: // first: a reader draining after Close makes room
			return false
		default:
		}
		select {
		case f.samples <- s:
			return true
		default:
		}
		select {
		case <-f.samples:
		default:
		}
	}
}

// Len is the number of members.
func (f *Fleet) Len() int { return len(f.members) }

// Addr is member i's address as given.
func (f *Fleet) Addr(i int) string { return f.addrs[i] }

// Member is member i's source: its own dashboard reads and drives it.
func (f *Fleet) Member(i int) session.Source { return f.members[i] }

// Samples gets every member's samples, each with its Remote the member's
// address as given, in the order each member sent them (no order across
// members); closed once every member has closed. A reader far behind
// loses the oldest: it holds 64 samples a member.
func (f *Fleet) Samples() <-chan session.Snapshot { return f.samples }

// Post sends a to member i only; see session.Source.Post.
func (f *Fleet) Post(i int, a session.Action) <-chan error { return f.members[i].Post(a) }

// Close closes every member, so Samples closes: what Samples' buffer
// holds then can still be read, what did not fit in it is dropped, read
// or not. Safe twice.
func (f *Fleet) Close() {
	f.once.Do(func() {
		var wg sync.WaitGroup
		for _, m := range f.members {
			wg.Add(1)
			go func() { defer wg.Done(); m.Close() }()
		}
		wg.Wait()
		close(f.closed)
	})
}

// Rows is one row per member, in the order given, read from each
// member's newest Snapshot now.
func (f *Fleet) Rows() []Row {
	rows := make([]Row, len(f.members))
	for i, m := range f.members {
		rows[i] = RowOf(i, f.addrs[i], m.Snapshot())
	}
	return rows
}

// Row is what the fleet view shows of one process.
type Row struct {
	Index int    // the member's place in the order given
	Name  string // the program's name (its agent's Options.Name)
	Addr  string
	// Disconnected is when the member's stream broke; zero while live.
	// A disconnected row has no figures (the fields below are zero).
	Disconnected time.Time
	Workers      int
	// LoopP99 is the Loop lateness p99, corrected, over the window;
	// LoopKnown is false while the window has no sample.
	LoopP99   time.Duration
	LoopKnown bool
	Queue     int64   // tasks queued
	TasksPerS float64 // tasks completed per second over the window; NaN: unknown
	// CPUPercent is the process's CPU over the last interval, 100 = one
	// core; RSSBytes its resident memory; each negative when unknown.
	CPUPercent float64
	RSSBytes   int64
	// Sizes is the member's own `sizes tried` row count (its rows only).
	Sizes int
	// Elapsed is the age of the member's agent at its newest line (t_s):
	// it grows with each line read.
	Elapsed time.Duration
}

// Live reports whether the row's stream is up.
func (r Row) Live() bool { return r.Disconnected.IsZero() }

// RowOf is the row of member i at addr whose newest Snapshot is s.
func RowOf(i int, addr string, s session.Snapshot) Row {
	r := Row{Index: i, Name: s.Scenario, Addr: addr, Disconnected: s.Disconnected}
	if !r.Live() {
		return r
	}
	r.Workers, r.Queue = s.Workers, s.QueueDepth
	r.LoopP99, r.LoopKnown = s.Probe.P99, s.Probe.Known()
	r.TasksPerS = float64(s.ThroughputPerSec)
	r.CPUPercent, r.RSSBytes = float64(s.CPUPercent), int64(s.RSSBytes)
	r.Sizes, r.Elapsed = len(s.Sizes), time.Duration(s.Elapsed)
	return r
}

// SortKey is the order of the rows on screen.
type SortKey int

// The sort keys, in the order the sort key steps through them (Next).
// Given is the order of the addresses as given; Name and Addr ascend;
// the figures descend (the busiest, the latest first), unknown figures
// and disconnected rows last.
const (
	ByGiven SortKey = iota
	ByName
	ByAddr
	ByLoopP99
	ByQueue
	ByTasks
	ByCPU
	ByRSS
	sortKeys
)

// String names k as the view's title says it.
func (k SortKey) String() string {
	return [...]string{"given order", "name", "address", "loop p99", "queue", "tasks/s", "CPU", "RSS"}[k]
}

// Next is the sort key after k, ByGiven after the last.
func (k SortKey) Next() SortKey { return (k + 1) % sortKeys }

// ParseSortKey reads a sort key by its String or its short name (given,
// name, addr, p99, queue, tasks, cpu, rss).
func ParseSortKey(s string) (SortKey, error) {
	short := [...]string{"given", "name", "addr", "p99", "queue", "tasks", "cpu", "rss"}
	for k := range sortKeys {
		if strings.EqualFold(s, short[k]) || strings.EqualFold(s, k.String()) {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown sort key %q (want one of %s)", s, strings.Join(short[:], ", "))
}

// figure is the row's figure k sorts by, and whether it is known.
func (r Row) figure(k SortKey) (float64, bool) {
	if !r.Live() {
		return 0, false
	}
	switch k {
	case ByLoopP99:
		return float64(r.LoopP99), r.LoopKnown
	case ByQueue:
		return float64(r.Queue), true
	case ByTasks:
		return r.TasksPerS, !math.IsNaN(r.TasksPerS)
	case ByCPU:
		return r.CPUPercent, r.CPUPercent >= 0
	case ByRSS:
		return float64(r.RSSBytes), r.RSSBytes >= 0
	}
	return 0, false
}

// Sort orders rows by k in place, ties in the order given.
func Sort(rows []Row, k SortKey) {
	slices.SortStableFunc(rows, func(a, b Row) int {
		switch k {
		case ByName:
			return cmp.Or(strings.Compare(a.Name, b.Name), a.Index-b.Index)
		case ByAddr:
			return cmp.Or(strings.Compare(a.Addr, b.Addr), a.Index-b.Index)
		case ByGiven:
			return a.Index - b.Index
		}
		va, oka := a.figure(k)
		vb, okb := b.figure(k)
		switch {
		case oka && okb && va != vb:
			return cmp.Compare(vb, va)
		case oka != okb && oka:
			return -1
		case oka != okb:
			return 1
		}
		return a.Index - b.Index
	})
}
