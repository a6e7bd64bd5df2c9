package ants_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/panjf2000/ants/v2"

	"github.com/offtop/offtop/agent"
	offtopants "github.com/offtop/offtop/contrib/ants"
)

func TestMeterCountsAndTunes(t *testing.T) {
	p, err := ants.NewPool(2)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	m := offtopants.Meter(p)
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		if err := offtopants.Submit(p, m, wg.Done); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second) // a task's end is counted after wg.Done, as it returns
	for m.Stats().Completed < 50 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	s := m.Stats()
	if s.Size != 2 || s.Completed != 50 || s.Submitted != 50 || len(s.Workers) != 2 {
		t.Fatalf("stats %+v", s)
	}
	if err := m.Resize(4); err != nil || p.Cap() != 4 {
		t.Fatalf("Resize(4): %v, cap %d", err, p.Cap())
	}
	if err := m.Resize(0); err == nil || p.Cap() != 4 {
		t.Fatalf("Resize(0): %v, cap %d (ants has no inline)", err, p.Cap())
	}
}

// TestTuneByTheProgramGetsItsRow: a program that resizes its ants pool
// itself (Tune, not a key of the dashboard) gets a "sizes tried" row for
// the new size in the agent's stream, and the old row stops counting.
func TestTuneByTheProgramGetsItsRow(t *testing.T) {
	p, err := ants.NewPool(2)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	m := offtopants.Meter(p)
	a, err := agent.Listen("127.0.0.1:0", agent.Options{Name: "svc", Pool: m, Interval: 20 * time.Millisecond, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	stop := make(chan struct{})
	defer close(stop)
	if err := offtopants.Submit(p, m, func() { <-stop }); err != nil { // work all along: the rows count
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + a.Addr().String() + agent.DefaultPath + "stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	type row struct {
		Workers int     `json:"workers"`
		HeldS   float64 `json:"held_s"`
		Current bool    `json:"current"`
	}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 4<<20)
	// until want holds of a line's rows, or the stream has given 500 lines
	// (10 s at 20 ms)
	until := func(what string, want func(map[int]row) bool) map[int]row {
		t.Helper()
		for range 500 {
			if !lines.Scan() {
				t.Fatalf("stream ended waiting for %s: %v", what, lines.Err())
			}
			var line struct {
				Sizes []row `json:"sizes"`
			}
			if err := json.Unmarshal(lines.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			rows := map[int]row{}
			for _, r := range line.Sizes {
				rows[r.Workers] = r
			}
			if want(rows) {
				return rows
			}
		}
		t.Fatalf("no line with %s", what)
		return nil
	}
	until("row 2 held", func(rs map[int]row) bool { return rs[2].Current && rs[2].HeldS > 0.1 })
	p.Tune(4)
	rows := until("row 4 current", func(rs map[int]row) bool { return rs[4].Current })
	if rows[2].Current {
		t.Fatalf("row 2 still current beside row 4: %+v", rows)
	}
	held2 := rows[2].HeldS
	rows = until("row 4 held 0.2s", func(rs map[int]row) bool { return rs[4].HeldS >= 0.2 })
	if rows[2].HeldS != held2 {
		t.Errorf("row 2 held %vs after the Tune, was %vs: still counting", rows[2].HeldS, held2)
	}
}
