package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/load"
	"github.com/offtop/offtop/internal/report"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/testkit"
)

// chanSource is a Source whose samples the test sends.
type chanSource struct{ ch chan session.Snapshot }

func (c chanSource) Samples() <-chan session.Snapshot { return c.ch }
func (c chanSource) Snapshot() session.Snapshot       { return session.Snapshot{} }
func (c chanSource) Post(session.Action) <-chan error { r := make(chan error, 1); r <- nil; return r }
func (c chanSource) Close()                           {}

// TestLoadSourceUnreadKeepsTheNewest: a load source nobody reads keeps
// taking its source's samples (the oldest of its own dropped), so the
// source never backs up, and it ends when the source's samples end.
func TestLoadSourceUnreadKeepsTheNewest(t *testing.T) {
	src := chanSource{make(chan session.Snapshot, 4)}
	s := NewLoadSource(src, nil, "/ping")
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := range 40 { // ten times the buffers: blocks unless taken
			var snap session.Snapshot
			snap.SamplesMissed = int64(i)
			src.ch <- snap
		}
		close(src.ch)
	}()
	select {
	case <-sent:
	case <-time.After(10 * time.Second):
		t.Fatal("the source backed up: the load source stopped taking samples nobody read")
	}
	var last session.Snapshot
	for snap := range s.Samples() {
		last = snap
	}
	if last.SamplesMissed != 39 || last.Route != "/ping" {
		t.Errorf("last sample %d, route %q: want the newest (39) with its route", last.SamplesMissed, last.Route)
	}
}

// discSource is a Source whose program has gone: its Snapshot is the
// disconnected one, figures unknown.
type discSource struct {
	chanSource
	posted *int
}

func (d discSource) Snapshot() session.Snapshot {
	var s session.Snapshot
	s.Remote, s.Disconnected = "127.0.0.1:7070", time.Now()
	return s
}

func (d discSource) Post(a session.Action) <-chan error { *d.posted++; return d.chanSource.Post(a) }

// TestAttachedSweepRefusesADisconnectedProgram: a sweep (or the live a
// key) on a program that is disconnected ends at once with ErrGone and
// sets no size: it would read 0 workers as the size to set back.
func TestAttachedSweepRefusesADisconnectedProgram(t *testing.T) {
	posted := 0
	src := discSource{chanSource{make(chan session.Snapshot)}, &posted}
	l, err := load.Start(load.Options{Base: "http://127.0.0.1:1", Spec: load.Spec{{Path: "/ping", Rate: 1}}, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	_, err = Run(context.Background(), Config{Attach: &Attached{Addr: "127.0.0.1:7070", Src: src, Load: l, Target: "/ping"},
		Workers: []int{1, 2}, Duration: time.Second, Repeat: 1}, io.Discard)
	if !errors.Is(err, ErrGone) || posted != 0 {
		t.Errorf("err %v, %d actions posted: want ErrGone and none", err, posted)
	}
}

// TestSearchRowsStayWithTheirProgram: the live search's rows show in the
// program's Snapshots, and not in those of another process on the same
// address (they are the earlier program's).
func TestSearchRowsStayWithTheirProgram(t *testing.T) {
	l, err := load.Start(load.Options{Base: "http://127.0.0.1:1", Spec: load.Spec{{Path: "/ping", Rate: 1}}, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	s := &loadSource{Source: chanSource{make(chan session.Snapshot)}, load: l, workers: -1}
	s.search.pid = 100
	s.search.st = session.Search{Scenario: "service", Sizes: []int{1, 2}}
	s.search.keepRow(session.SizeRow{Scenario: "service", Workers: 1, Held: time.Second}, nil)
	var snap session.Snapshot
	snap.Scenario, snap.PID = "service", 100
	if got := s.fill(snap); len(got.Sizes) != 1 || got.Search.Scenario == "" {
		t.Fatalf("pid 100: %d rows, search %q: want the search's row and state", len(got.Sizes), got.Search.Scenario)
	}
	snap.PID = 200
	if got := s.fill(snap); len(got.Sizes) != 0 || got.Search.Scenario != "" {
		t.Errorf("pid 200: %d rows, search %q: want none of pid 100's", len(got.Sizes), got.Search.Scenario)
	}
}

// TestSearchSpreadShowsEachPass: each measured hold's headline p99 joins
// its size's spread as the hold ends, so the panel's "pass p99 ms" fills
// while the search runs; a hold with no answer is NaN (shown n/a).
func TestSearchSpreadShowsEachPass(t *testing.T) {
	var l liveSearch
	l.st = session.Search{Running: true, Scenario: "service", Sizes: []int{1, 2}, Spread: make([][]float64, 2)}
	v := func(f float64) *float64 { return &f }
	l.keepRow(session.SizeRow{Scenario: "service", Workers: 1}, v(1.5))
	l.keepRow(session.SizeRow{Scenario: "service", Workers: 2}, nil)
	st, _ := l.state()
	l.keepRow(session.SizeRow{Scenario: "service", Workers: 1}, v(2.5))
	if len(st.Spread[0]) != 1 || st.Spread[0][0] != 1.5 || len(st.Spread[1]) != 1 || !math.IsNaN(st.Spread[1][0]) {
		t.Fatalf("after one pass: spread %v, want [[1.5] [NaN]]", st.Spread)
	}
	if st, _ = l.state(); len(st.Spread[0]) != 2 || st.Spread[0][1] != 2.5 {
		t.Fatalf("after two holds at 1: spread %v, want [[1.5 2.5] [NaN]]", st.Spread)
	}
}

// TestSearchRowsOutliveABriefReturn: a size the search measured that the
// pool passes through again after it (set back to its size before, then
// to the pick) keeps the search's row until the agent has held it as
// long; the agent's longer-held row wins, and Current follows the
// agent's.
func TestSearchRowsOutliveABriefReturn(t *testing.T) {
	var l liveSearch
	row := func(n int, held time.Duration, current bool) session.SizeRow {
		return session.SizeRow{Scenario: "service", Workers: n, Held: held, Current: current}
	}
	l.keepRow(row(1, 5*time.Second, false), nil)
	l.keepRow(row(2, 5*time.Second, false), nil)
	got := l.withRows(session.SizeRows{row(2, 8*time.Millisecond, false), row(4, time.Second, true)})
	if len(got) != 3 || got[1].Workers != 2 || got[1].Held != 5*time.Second {
		t.Fatalf("rows %+v: want 1, 2 (the search's, held 5s), 4", got)
	}
	got = l.withRows(session.SizeRows{row(2, 10*time.Millisecond, true)})
	if got[1].Held != 5*time.Second || !got[1].Current {
		t.Errorf("size 2 in force again, briefly: %+v, want the search's row marked current", got[1])
	}
	got = l.withRows(session.SizeRows{row(2, 6*time.Second, true)})
	if got[1].Held != 6*time.Second || !got[1].Current {
		t.Errorf("size 2 held 6s by the agent: %+v, want the agent's row", got[1])
	}
}

// TestRowsRankByTheClientUnderALoad: under a load, the program's size
// rows carry the --route target's client latency at each size as their
// headline (named "/fib client"), exactly the load's figure for that size,
// rows of another scenario are left alone, and the rows' pick follows it
// where the Loop probe would pick the other size.
func TestRowsRankByTheClientUnderALoad(t *testing.T) {
	var slow atomic.Bool // the service is slow while 1 worker is in force
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() && r.URL.Path == "/fib" {
			time.Sleep(100 * time.Millisecond)
		}
	}))
	defer srv.Close()
	l, err := load.Start(load.Options{Base: srv.URL, Spec: load.Spec{{Path: "/ping", Rate: 20}, {Path: "/fib", Rate: 20}}, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	s := &loadSource{Source: chanSource{make(chan session.Snapshot)}, load: l, route: "/fib", workers: -1}
	for _, n := range []int{1, 2} {
		slow.Store(n == 1)
		var snap session.Snapshot
		snap.Scenario, snap.Workers = "service", n
		s.fill(snap) // files the requests due from now under n workers
		testkit.WaitFor(t, fmt.Sprintf("5 answers at %d workers", n), 0, func() bool { return l.BySize("/fib")[n].Count >= 5 })
	}
	slow.Store(false)
	probe := func(ms float64) hist.Summary {
		d := time.Duration(ms * float64(time.Millisecond))
		return hist.Summary{P50: d, P90: d, P99: d, P999: d, Max: d, Count: 100}
	}
	var snap session.Snapshot
	snap.Scenario, snap.Workers, snap.PID = "service", 2, 100
	snap.Sizes = session.SizeRows{
		{Scenario: "service", Workers: 1, Held: 10 * time.Second, Probe: probe(0.2), HeadlineName: "probe", Headline: probe(0.2)},
		{Scenario: "service", Workers: 2, Held: 10 * time.Second, Probe: probe(3), HeadlineName: "probe", Headline: probe(3), Current: true},
		{Scenario: "other", Workers: 1, Held: 10 * time.Second, Probe: probe(1), HeadlineName: "probe", Headline: probe(1)},
	}
	before := slices.Clone(snap.Sizes)
	got := s.fill(snap)
	if !slices.EqualFunc(snap.Sizes, before, func(a, b session.SizeRow) bool { return a.HeadlineName == b.HeadlineName && a.Headline == b.Headline }) {
		t.Error("fill modified the source's rows")
	}
	by := l.BySize("/fib")
	for _, r := range got.Sizes[:2] {
		if r.HeadlineName != "/fib client" || r.Headline != by[r.Workers] || r.Headline.Count == 0 {
			t.Errorf("row %d: headline %q %+v; want \"/fib client\" and the load's figure at %d workers %+v", r.Workers, r.HeadlineName, r.Headline, r.Workers, by[r.Workers])
		}
	}
	if o := got.Sizes[2]; o.HeadlineName != "probe" || o.Headline != probe(1) {
		t.Errorf("another scenario's row: headline %q %+v; want it left alone", o.HeadlineName, o.Headline)
	}
	if by[1].P99 < 100*time.Millisecond || by[2].P99 >= by[1].P99 {
		t.Fatalf("client p99 at 1 worker %v, at 2 %v: want 1 >= 100ms (the slow handler) and over 2's", by[1].P99, by[2].P99)
	}
	pick := report.PickFor(got, report.For(got.Sizes, got.Scenario, report.MinHeld))
	if pick.Workers != 2 || !strings.Contains(pick.Line, "lowest /fib client p99") {
		t.Errorf("pick %d (%q); want 2 workers by the lowest /fib client p99 (the probe favours 1)", pick.Workers, pick.Line)
	}
}

// TestANewProcessStartsItsClientFiguresAfresh: when the program on the
// address is another process (restarted), the load's figures per size
// are its own from then on: the old process's client p99 at a size is not
// shown in the new one's row of that size.
func TestANewProcessStartsItsClientFiguresAfresh(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	l, err := load.Start(load.Options{Base: srv.URL, Spec: load.Spec{{Path: "/ping", Rate: 50}}, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	s := &loadSource{Source: chanSource{make(chan session.Snapshot)}, load: l, workers: -1}
	snap := func(pid int) session.Snapshot {
		var sn session.Snapshot
		sn.Scenario, sn.Workers, sn.PID = "service", 3, pid
		sn.Sizes = session.SizeRows{{Scenario: "service", Workers: 3, Held: 10 * time.Second, Current: true}}
		return sn
	}
	s.fill(snap(100))
	testkit.WaitFor(t, "an answer at 3 workers", 0, func() bool { return l.BySize("/ping")[3].Count > 0 })
	if got := s.fill(snap(100)); got.Sizes[0].Headline.Count == 0 {
		t.Fatal("pid 100's row at 3 workers: no client figure")
	}
	if got := s.fill(snap(200)); got.Sizes[0].Headline.Count != 0 {
		t.Errorf("pid 200's row at 3 workers: %+v of pid 100's requests; want none", got.Sizes[0].Headline)
	}
}

// TestSearchedRowsReadTheirPassMedian: a size the search held reads, as
// its headline p99, the median of its passes' p99s (a pass with no
// answer left out), the figure its pick ranks by; a size it did not hold
// reads the client's p99 over the size's requests.
func TestSearchedRowsReadTheirPassMedian(t *testing.T) {
	l, err := load.Start(load.Options{Base: "http://127.0.0.1:1", Spec: load.Spec{{Path: "/ping", Rate: 1}}, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	s := &loadSource{Source: chanSource{make(chan session.Snapshot)}, load: l, workers: -1}
	sum := func(ms float64) hist.Summary {
		return hist.Summary{P99: time.Duration(ms * float64(time.Millisecond)), Count: 10}
	}
	var snap session.Snapshot
	snap.Scenario = "service"
	snap.Sizes = session.SizeRows{{Scenario: "service", Workers: 1}, {Scenario: "service", Workers: 2}, {Scenario: "service", Workers: 3}}
	snap.LoadClient = &session.LoadClient{Targets: []session.LoadTarget{{Target: "/ping", BySize: map[int]hist.Summary{1: sum(9), 2: sum(9), 3: sum(7)}}}}
	snap.Search = session.Search{Scenario: "service", Sizes: []int{1, 2}, Spread: [][]float64{{2, 4, math.NaN()}, {1}}}
	got := s.clientRows(snap)
	for i, want := range []time.Duration{3 * time.Millisecond, time.Millisecond, 7 * time.Millisecond} {
		if got[i].Headline.P99 != want {
			t.Errorf("row %d workers: p99 %v, want %v", got[i].Workers, got[i].Headline.P99, want)
		}
	}
}
