package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/fleet"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/testkit"
)

// fakeFleet is n fakeSources at addresses 10.0.0.1:7000 on.
type fakeFleet struct{ m []*fakeSource }

func newFakeFleet(n int) *fakeFleet {
	f := &fakeFleet{}
	for i := range n {
		s := newFake()
		s.snap.Remote = fmt.Sprintf("10.0.0.%d:7000", i+1)
		s.snap.Scenario = fmt.Sprintf("svc%02d", i)
		s.snap.Probe.P99 = time.Duration(i+1) * time.Millisecond
		f.m = append(f.m, s)
	}
	return f
}

func (f *fakeFleet) Len() int                    { return len(f.m) }
func (f *fakeFleet) Member(i int) session.Source { return sourceOf{f.m[i]} }
func (f *fakeFleet) Post(i int, a session.Action) <-chan error {
	return f.m[i].Post(a)
}
func (f *fakeFleet) Rows() []fleet.Row {
	var rows []fleet.Row
	for i, m := range f.m {
		rows = append(rows, fleet.RowOf(i, m.snap.Remote, m.Snapshot()))
	}
	return rows
}

// sourceOf is a fakeSource as a session.Source.
type sourceOf struct{ *fakeSource }

func (sourceOf) Samples() <-chan session.Snapshot { return nil }
func (sourceOf) Close()                           {}

// fleetRun gives m msg and runs the Cmds that follow (testkit.Drive).
func fleetRun(m FleetModel, msg tea.Msg) FleetModel { return testkit.Drive(m, msg).(FleetModel) }

func fleetKeys(m FleetModel, keys ...string) FleetModel {
	for _, k := range keys {
		m = fleetRun(m, KeyMsg(k))
	}
	return m
}

// TestFleetScreenScrollsWithTheSelection: 32 processes on 80x24 show the
// rows that fit, the selected one among them, and say which; on 100x40
// all 32.
func TestFleetScreenScrollsWithTheSelection(t *testing.T) {
	f := newFakeFleet(32)
	m := NewFleet(f, fleet.ByGiven)
	m = fleetRun(m, tea.WindowSizeMsg{Width: 80, Height: 24})
	m = fleetRun(m, m.Init()())
	out := ansi.Strip(m.View().Content)
	if lines := strings.Split(out, "\n"); len(lines) != 24 || !strings.Contains(out, "rows 1-21 of 32") || strings.Contains(out, "svc21") {
		t.Fatalf("80x24, top:\n%s", out)
	}
	for range 25 {
		m = fleetKeys(m, "down")
	}
	out = ansi.Strip(m.View().Content)
	if !strings.Contains(out, "rows 6-26 of 32") || !strings.Contains(out, "▸ svc25") || strings.Contains(out, "svc04") {
		t.Fatalf("80x24, the 26th selected:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if ansi.StringWidth(l) > 80 {
			t.Errorf("a line over 80 cells: %q", l)
		}
	}
	m = fleetRun(m, tea.WindowSizeMsg{Width: 100, Height: 40})
	if out := ansi.Strip(m.View().Content); strings.Contains(out, "rows ") || !strings.Contains(out, "svc00") || !strings.Contains(out, "svc31") {
		t.Fatalf("100x40 does not hold all 32:\n%s", out)
	}
}

// TestFleetSelectionFollowsTheProcess: a new sort key moves the rows, not
// the selection; a resize key goes to the selected process only; enter
// opens its dashboard, esc on its ? screen closes that, then returns.
func TestFleetSelectionFollowsTheProcess(t *testing.T) {
	f := newFakeFleet(3)
	m := NewFleet(f, fleet.ByGiven)
	m = fleetRun(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = fleetRun(m, m.Init()())
	m = fleetKeys(m, "down", "s", "s", "s") // svc01 selected; by loop p99: svc02 svc01 svc00
	if sel, _ := m.Selected(); sel != 1 {
		t.Fatalf("selected %d after the sort, want 1", sel)
	}
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "sort: loop p99") ||
		strings.Index(out, "svc02") > strings.Index(out, "svc01") || !strings.Contains(out, "▸ svc01") {
		t.Fatalf("by loop p99:\n%s", out)
	}
	m = fleetKeys(m, "down", "7") // svc00, the last by p99
	for i, s := range f.m {
		if acts := s.Actions(); (i == 0) != (len(acts) == 1) || i == 0 && acts[0] != (session.Action{Kind: session.SetWorkers, N: 7}) {
			t.Errorf("process %d got %v", i, acts)
		}
	}
	m = fleetKeys(m, "enter", "?")
	if _, open := m.Selected(); !open || !m.dash[0].view.help {
		t.Fatal("enter ?: not svc00's ? screen")
	}
	m = fleetKeys(m, "esc")
	if _, open := m.Selected(); !open || m.dash[0].view.help {
		t.Fatal("esc on the ? screen: want it closed, the dashboard open")
	}
	if out := ansi.Strip(m.View().Content); !strings.Contains(out, "10.0.0.1:7000  esc back to the fleet: 3 processes, 3 live") {
		t.Fatalf("open dashboard without the fleet's line:\n%s", out)
	}
	m = fleetKeys(m, "esc")
	if _, open := m.Selected(); open {
		t.Fatal("esc: still open")
	}
}

// TestFleetStateFitsTheWidth: a disconnected row says since when in the
// longest form the width holds with every figure (80: down; 100:
// disconnected; 140: disconnected since, and the sizes count), its
// figures "-", and no line is wider than the screen.
func TestFleetStateFitsTheWidth(t *testing.T) {
	f := newFakeFleet(3)
	at := time.Date(2026, 12, 2, 3, 4, 5, 0, time.Local)
	f.m[1].snap.Disconnected = at
	m := NewFleet(f, fleet.ByGiven)
	m = fleetRun(m, m.Init()())
	for w, want := range map[int]string{80: "down 03:04:05", 100: "disconnected 03:04:05", 140: "disconnected since 03:04:05"} {
		m = fleetRun(m, tea.WindowSizeMsg{Width: w, Height: 24})
		out := ansi.Strip(m.View().Content)
		var row string
		for _, l := range strings.Split(out, "\n") {
			if ansi.StringWidth(l) > w {
				t.Errorf("%d: a line of %d cells: %q", w, ansi.StringWidth(l), l)
			}
			if strings.Contains(l, "svc01") {
				row = l
			}
		}
		fields := strings.Fields(row)
		if !strings.Contains(row, want) || strings.Contains(row, "…") || fields[len(fields)-1] != "-" || w == 80 && strings.Contains(out, "sizes") || w == 140 && !strings.Contains(out, "sizes") {
			t.Errorf("%d: row %q, want %q, figures -, the sizes column at 140, not at 80:\n%s", w, row, want, out)
		}
	}
}

// TestFleetOpenDashboardTooSmall: an open dashboard shares the terminal
// with the fleet's line, so on a terminal one line short of its need it
// names the terminal's size and what the terminal needs, not the size
// left to the dashboard.
func TestFleetOpenDashboardTooSmall(t *testing.T) {
	m := NewFleet(newFakeFleet(3), fleet.ByGiven)
	m = fleetRun(m, tea.WindowSizeMsg{Width: MinWidth, Height: MinHeight})
	m = fleetRun(m, m.Init()())
	m = fleetKeys(m, "enter")
	want := fmt.Sprintf("offtop needs %dx%d (now %dx%d)", MinWidth, MinHeight+1, MinWidth, MinHeight)
	if out := ansi.Strip(m.View().Content); !strings.HasPrefix(out, want+"\n") || !strings.Contains(out, "esc back to the fleet") {
		t.Fatalf("open at %dx%d:\n%s\nwant it to start with %q", MinWidth, MinHeight, out, want)
	}
	m = fleetRun(m, tea.WindowSizeMsg{Width: MinWidth, Height: MinHeight + 1})
	if out := ansi.Strip(m.View().Content); strings.Contains(out, "offtop needs") {
		t.Fatalf("open at %dx%d:\n%s", MinWidth, MinHeight+1, out)
	}
}
