package fleet

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/session"
)

func snap(name string, p99 time.Duration, queue int64, tasks, cpu float64, rss int64) session.Snapshot {
	s := session.Snapshot{Run: session.Run{Scenario: name}}
	s.Workers, s.QueueDepth, s.ThroughputPerSec = 2, queue, session.Rate(tasks)
	s.Probe = hist.Summary{P99: p99, Count: 10}
	s.CPUPercent, s.RSSBytes = session.Percent(cpu), session.Bytes(rss)
	s.Sizes = session.SizeRows{{Workers: 2}}
	return s
}

// TestRowOf: a live row carries the figures; a disconnected one only
// its name, address and time.
func TestRowOf(t *testing.T) {
	r := RowOf(1, "a:1", snap("svc", 3*time.Millisecond, 4, 12.5, 50, 1<<20))
	if !r.Live() || r.Name != "svc" || r.Workers != 2 || r.LoopP99 != 3*time.Millisecond || !r.LoopKnown || r.Queue != 4 ||
		r.TasksPerS != 12.5 || r.CPUPercent != 50 || r.RSSBytes != 1<<20 || r.Sizes != 1 {
		t.Fatalf("live row %+v", r)
	}
	at := time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC)
	gone := snap("svc", 3*time.Millisecond, 4, 12.5, 50, 1<<20)
	gone.Disconnected = at
	if r := RowOf(1, "a:1", gone); r.Live() || r.Disconnected != at || r.Workers != 0 || r.LoopKnown || r.Sizes != 0 {
		t.Fatalf("disconnected row %+v", r)
	}
}

// TestSort: names and addresses ascend, figures descend, unknown
// figures and disconnected rows last, ties in the order given.
func TestSort(t *testing.T) {
	gone := snap("b", 0, 0, 0, 0, 0)
	gone.Disconnected = time.Now()
	unknown := snap("d", 0, 1, math.NaN(), -1, -1)
	unknown.Probe = hist.Summary{}
	rows := []Row{
		RowOf(0, "c:3", snap("c", 5*time.Millisecond, 1, 10, 30, 300)),
		RowOf(1, "a:1", gone),
		RowOf(2, "b:2", snap("a", 9*time.Millisecond, 7, 20, 10, 100)),
		RowOf(3, "d:4", unknown),
	}
	for k, want := range map[SortKey][]int{
		ByGiven: {0, 1, 2, 3}, ByName: {2, 1, 0, 3}, ByAddr: {1, 2, 0, 3},
		ByLoopP99: {2, 0, 1, 3}, ByQueue: {2, 0, 3, 1}, ByTasks: {2, 0, 1, 3}, ByCPU: {0, 2, 1, 3}, ByRSS: {0, 2, 1, 3},
	} {
		got := slices.Clone(rows)
		Sort(got, k)
		var idx []int
		for _, r := range got {
			idx = append(idx, r.Index)
		}
		if !slices.Equal(idx, want) {
			t.Errorf("by %v: %v, want %v", k, idx, want)
		}
	}
	for k := range sortKeys {
		if p, err := ParseSortKey(k.String()); err != nil || p != k {
			t.Errorf("ParseSortKey(%q) = %v, %v", k.String(), p, err)
		}
	}
	if k := SortKey(sortKeys - 1).Next(); k != ByGiven {
		t.Errorf("after the last: %v", k)
	}
}

// member is a Source whose samples a test sends.
type member struct {
	ch   chan session.Snapshot
	last session.Snapshot
	acts []session.Action
}

func (m *member) Samples() <-chan session.Snapshot { return m.ch }
func (m *member) Snapshot() session.Snapshot       { return m.last }
func (m *member) Close()                           { close(m.ch) }
func (m *member) Post(a session.Action) <-chan error {
	m.acts = append(m.acts, a)
	res := make(chan error, 1)
	res <- nil
	return res
}

// TestFleetMergesAndCloses: each member's samples come out tagged with
// its address; an action goes to its member only; Close ends Samples
// even when more was sent than its buffer holds and nobody read.
func TestFleetMergesAndCloses(t *testing.T) {
	a, b := &member{ch: make(chan session.Snapshot, 1000)}, &member{ch: make(chan session.Snapshot, 1000)}
	f := New([]string{"a:1", "b:2"}, []session.Source{a, b})
	a.ch <- session.Snapshot{}
	b.ch <- session.Snapshot{}
	got := map[string]bool{}
	for range 2 {
		got[(<-f.Samples()).Remote] = true
	}
	if !got["a:1"] || !got["b:2"] {
		t.Fatalf("tags %v", got)
	}
	if err := <-f.Post(1, session.Action{Kind: session.SetWorkers, N: 3}); err != nil || len(a.acts) != 0 || len(b.acts) != 1 {
		t.Fatalf("post to 1: %v, a %v, b %v", err, a.acts, b.acts)
	}
	for range 500 { // past Samples' buffer of 64 per member
		a.ch <- session.Snapshot{}
	}
	f.Close()
	f.Close()
	n := 0
	for range f.Samples() {
		n++
	}
	// The buffer's 64 a member, and one each forwarder was handing on
	// as Close finished.
	if n > 64*2+2 {
		t.Fatalf("%d samples read after Close, more than the buffer and one a member", n)
	}
}

// TestFleetStalledReaderDropsOldest: with nobody reading Samples, a
// member's samples are still taken as it sends them (its own buffer
// never fills: a stalled writer of lines holds 64 samples a member, not
// every member's whole buffer), and the reader then gets the newest, in
// the order sent.
func TestFleetStalledReaderDropsOldest(t *testing.T) {
	a, b := &member{ch: make(chan session.Snapshot)}, &member{ch: make(chan session.Snapshot)}
	f := New([]string{"a:1", "b:2"}, []session.Source{a, b})
	defer f.Close()
	const n = 1000
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := range n {
			a.ch <- session.Snapshot{Elapsed: session.Seconds(i + 1)}
		}
	}()
	select {
	case <-sent:
	case <-time.After(10 * time.Second):
		t.Fatalf("a member's %d sends not taken with nobody reading: the fleet holds its reader up", n)
	}
	var got []session.Seconds
	for s := range f.Samples() {
		got = append(got, s.Elapsed)
		if s.Elapsed == n {
			break
		}
	}
	// The buffer's 64 a member, and the one a's forwarder took from it
	// last and was handing on when the reading began.
	if most := 64*2 + 1; len(got) > most || !slices.IsSorted(got) || got[len(got)-1] != n {
		t.Fatalf("read %d samples after the stall (want at most %d, the newest last, in order): %v", len(got), most, got)
	}
}
