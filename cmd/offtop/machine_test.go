package main

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sysinfo"
	"github.com/offtop/offtop/internal/ui"
)

// scriptedMachine is a fake machine reading: others take 2 of 2 CPUs
// until busyFor has passed since its first read, none after.
type scriptedMachine struct {
	busyFor time.Duration

	mu     sync.Mutex
	t0     time.Time
	last   time.Time
	others time.Duration
}

func (m *scriptedMachine) ReadMachine() sysinfo.MachineSample {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if m.t0.IsZero() {
		m.t0, m.last = now, now
	}
	end := m.t0.Add(m.busyFor)
	if m.last.Before(end) { // the busy part of (last, now]
		m.others += 2 * (min(now.Sub(m.last), end.Sub(m.last)))
	}
	m.last = now
	return sysinfo.MachineSample{At: now, Others: m.others, CPUs: 2, Known: true}
}

// TestScriptedRunNotPickedBusy: a --keys run holding 1 worker while the
// (fake) machine is busy and 2 workers after: the last JSON line marks the
// 1-worker row machine_busy and not the 2-worker row, and the pick, in the
// exit summary and on the screen drawn from that line, is 2 workers with
// its rule, the busy row marked s! beside the rule that set it aside.
func TestScriptedRunNotPickedBusy(t *testing.T) {
	var stderr strings.Builder
	o, err := parse([]string{"--headless", "--scenario", "server", "--keys", "0s:1 3s:2", "--duration", "6s"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	o.session.Machine = &scriptedMachine{busyFor: 2800 * time.Millisecond}
	var stdout strings.Builder
	if err := runOnce(o, &stdout, &stderr, newCrasher(&stderr)); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rows := lastSizes(t, stdout.String())
	busy := map[int]bool{}
	for _, r := range rows {
		busy[r.Workers] = r.MachineBusy
	}
	if len(rows) != 2 || !busy[1] || busy[2] {
		t.Fatalf("rows %+v: want 1 worker machine_busy, 2 workers not", rows)
	}
	sum := ansi.Strip(stderr.String())
	if !strings.Contains(sum, "  pick: 2 workers, lowest ping p99 (") || !strings.Contains(sum, "s! held while others took >25% of CPUs") {
		t.Errorf("summary does not pick the clean row:\n%s", sum)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var d session.Decoder
	snap, err := d.Snapshot([]byte(lines[len(lines)-1]))
	if err != nil {
		t.Fatal(err)
	}
	screen := ansi.Strip(ui.Render(snap, 100, 30, false))
	marks := regexp.MustCompile(`(?m)^[> ]\* +[0-9]+ `).FindAllString(screen, -1)
	if !strings.Contains(screen, "pick: 2 workers, lowest ping p99 (") || len(marks) != 1 || !strings.HasSuffix(strings.TrimSpace(marks[0]), "2") || !strings.Contains(screen, "s!") {
		t.Errorf("screen does not give the one clean pick:\n%s", screen)
	}
}
