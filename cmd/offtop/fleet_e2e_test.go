package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/fleet"
	"github.com/offtop/offtop/internal/remote"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/testkit"
	"github.com/offtop/offtop/internal/ui"
)

var drive = testkit.Drive

// screen is m's screen, without styles.
func screen(m tea.Model) string { return ansi.Strip(m.View().Content) }

// rowLine is the screen's line of the process at addr.
func rowLine(t *testing.T, m tea.Model, addr string) string {
	t.Helper()
	for _, l := range strings.Split(screen(m), "\n") {
		if strings.Contains(l, addr) {
			return l
		}
	}
	t.Fatalf("no row of %s on:\n%s", addr, screen(m))
	return ""
}

// trickle sends each of addrs a /fib?n=20 every 20ms until the test ends,
// so their pools have tasks (a size row counts only then) at little CPU,
// where the example's own load would take a core each.
func trickle(t *testing.T, addrs []string) {
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	hc := &http.Client{Timeout: 2 * time.Second}
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			for _, a := range addrs {
				if resp, err := hc.Get("http://" + a + "/fib?n=20"); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}
	}()
}

// TestFleetKillRestartResize: three example services on one fleet
// screen; one killed: its row says disconnected with the time its stream
// broke, while the other two keep sending lines; restarted on its
// address, it comes back live. A resize on the selected (third) process
// changes that service's pool only, as each service's own /pool says, and
// only its dashboard gets a `sizes tried` row for the new size.
func TestFleetKillRestartResize(t *testing.T) {
	var addrs []string
	kills := map[string]func(){}
	for range 3 {
		a, kill := startService(t, "127.0.0.1:0", "--load", "0")
		addrs = append(addrs, a)
		kills[a] = kill
	}
	trickle(t, addrs)
	members := make([]session.Source, 3)
	for i, a := range addrs {
		c, err := remote.Dial(a, remote.Options{})
		if err != nil {
			t.Fatal(err)
		}
		members[i] = c
	}
	fl := fleet.New(addrs, members)
	defer fl.Close()
	var m tea.Model = ui.NewFleet(fl, fleet.ByGiven)
	m = drive(m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = drive(m, m.Init()())
	const limit = 20 * time.Second
	// next is the next line of the process at addr that ok takes; the
	// screen reads the rows then, as at a Sampled.
	next := func(what, addr string, ok func(session.Snapshot) bool) session.Snapshot {
		t.Helper()
		s := testkit.Await(t, what, limit, fl.Samples(), func(s session.Snapshot) bool { return s.Remote == addr && ok(s) })
		m = drive(m, ui.Sampled())
		return s
	}
	live := func(s session.Snapshot) bool { return s.Disconnected.IsZero() }
	for _, a := range addrs {
		next(a+" live", a, live)
	}
	for _, a := range addrs {
		if l := rowLine(t, m, a); !strings.Contains(l, " live ") {
			t.Fatalf("row of %s: %q, want live", a, l)
		}
	}

	gone := addrs[1]
	before := fl.Rows()
	kills[gone]()
	down := next(gone+" disconnected", gone, func(s session.Snapshot) bool { return !s.Disconnected.IsZero() })
	for _, i := range []int{0, 2} {
		a, was := addrs[i], before[i].Elapsed
		next(a+" newer while "+gone+" is down", a, func(s session.Snapshot) bool { return time.Duration(s.Elapsed) > was })
	}
	at := down.Disconnected.Format("15:04:05")
	if l := rowLine(t, m, gone); !strings.Contains(l, "disconnected "+at) || strings.Contains(l, " live ") {
		t.Fatalf("row of the killed %s: %q, want disconnected %s", gone, l, at)
	}
	rows := fl.Rows()
	for _, i := range []int{0, 2} {
		if l := rowLine(t, m, addrs[i]); !strings.Contains(l, " live ") || rows[i].Elapsed <= before[i].Elapsed {
			t.Fatalf("row of %s while %s is down: %q, age %v then %v", addrs[i], gone, l, before[i].Elapsed, rows[i].Elapsed)
		}
	}
	if !strings.Contains(screen(m), "3 processes, 2 live, 1 disconnected") {
		t.Errorf("title does not count the disconnected one:\n%s", screen(m))
	}

	startService(t, gone, "--load", "0")
	next(gone+" live again", gone, live)
	if l := rowLine(t, m, gone); !strings.Contains(l, " live ") {
		t.Fatalf("row of the restarted %s: %q, want live", gone, l)
	}

	// The third process, selected, resized with 4; then its dashboard.
	m = drive(m, ui.KeyMsg("down"))
	m = drive(m, ui.KeyMsg("down"))
	if sel, _ := m.(ui.FleetModel).Selected(); sel != 2 {
		t.Fatalf("selected %d after down down, want 2", sel)
	}
	m = drive(m, ui.KeyMsg("4"))
	for i, a := range addrs {
		want := 2
		if i == 2 {
			want = 4
		}
		if w := poolWorkers(t, a); w != want {
			t.Errorf("%s's /pool says %d workers, want %d", a, w, want)
		}
	}
	held := func(s session.Snapshot) bool {
		return slices.ContainsFunc(s.Sizes, func(r session.SizeRow) bool { return r.Workers == 4 })
	}
	next(addrs[2]+" a sizes row at 4", addrs[2], held)
	for _, i := range []int{0, 1} {
		if s := fl.Member(i).Snapshot(); held(s) {
			t.Errorf("%s has a sizes row at 4 workers, never resized: %+v", addrs[i], s.Sizes)
		}
	}
	m = drive(m, ui.KeyMsg("enter"))
	if sel, open := m.(ui.FleetModel).Selected(); sel != 2 || !open {
		t.Fatalf("enter: selected %d open %v", sel, open)
	}
	if out := screen(m); !strings.Contains(out, "workers 4") || !strings.Contains(out, "esc back to the fleet") {
		t.Fatalf("the third's dashboard:\n%s", out)
	}
	m = drive(m, ui.KeyMsg("esc"))
	if _, open := m.(ui.FleetModel).Selected(); open || !strings.Contains(screen(m), "sort: given order") {
		t.Fatalf("esc: still open, or not the fleet:\n%s", screen(m))
	}
}

// TestFleetHeadlessTagsEveryLine: attach --headless with two ADDRs writes
// both processes' lines, each with "addr" first naming its process, and
// every other key a one-process line has; docs/json-lines.md names addr.
func TestFleetHeadlessTagsEveryLine(t *testing.T) {
	a, _ := startService(t, "127.0.0.1:0", "--load", "0")
	b, _ := startService(t, "127.0.0.1:0", "--load", "0")
	cmd := exec.Command(buildBinary(t), "attach", a, b, "--headless", "--duration", "2s")
	seen := map[string]int{}
	var keys []string
	headlessLines(t, cmd, func(line string, _ time.Duration, m map[string]any) {
		addr, _ := m["addr"].(string)
		if !strings.HasPrefix(line, `{"addr":`) || (addr != a && addr != b) || m["schema"] != float64(1) {
			t.Fatalf("line without addr first: %.120s", line)
		}
		seen[addr]++
		if keys == nil {
			for k := range m {
				keys = append(keys, k)
			}
		}
	})
	if seen[a] < 2 || seen[b] < 2 {
		t.Fatalf("lines per ADDR %v, want a few of each", seen)
	}
	one := exec.Command(buildBinary(t), "attach", a, "--headless", "--duration", "600ms")
	var oneKeys []string
	headlessLines(t, one, func(_ string, _ time.Duration, m map[string]any) {
		if _, ok := m["addr"]; ok {
			t.Fatal("a one-ADDR line has addr")
		}
		if oneKeys == nil {
			for k := range m {
				oneKeys = append(oneKeys, k)
			}
		}
	})
	slices.Sort(keys)
	want := append(oneKeys, "addr")
	slices.Sort(want)
	if !slices.Equal(keys, want) {
		t.Errorf("fleet line keys %q, want a one-ADDR line's and addr: %q", keys, want)
	}
	doc, err := os.ReadFile("../../docs/json-lines.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "with one key more, first: `addr`") {
		t.Error("docs/json-lines.md does not name the fleet's addr key")
	}
}

// TestFleetOneAgentByTwoNames: two ADDRs that reach one process under
// names that differ as written (localhost, an IPv4-mapped IPv6 address)
// are refused once read, one line naming both, exit 2.
func TestFleetOneAgentByTwoNames(t *testing.T) {
	addr, _ := startService(t, "127.0.0.1:0", "--load", "0")
	_, port, _ := strings.Cut(addr, ":")
	for _, alias := range []string{"localhost:" + port, "[::ffff:127.0.0.1]:" + port} {
		cmd := exec.Command(buildBinary(t), "attach", addr, alias, "--headless", "--duration", "2s")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		want := `"` + alias + `" are one agent`
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 || stdout.Len() > 0 {
			t.Errorf("%s and %s: exit %v, stderr %q, stdout %d bytes; want 2, one line with %q, no lines", addr, alias, err, stderr.String(), stdout.Len(), want)
		}
	}
}
