package ui

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/offtop/offtop/internal/clock"
	"github.com/offtop/offtop/internal/testkit"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
)

// realSnapshots holds realSnapshot's answer per scenario: the tests that
// read one only vary its figures, so one session per scenario serves all.
var realSnapshots sync.Map // scenario name -> session.Snapshot

// realSnapshot runs scenario in a real session for six samples of its
// (fake) clock and returns the last Snapshot: the scenario's own readouts,
// load and look. The scenario's load runs on the wall clock.
func realSnapshot(t *testing.T, scenario string) session.Snapshot {
	t.Helper()
	if snap, ok := realSnapshots.Load(scenario); ok {
		return snap.(session.Snapshot)
	}
	const interval = 50 * time.Millisecond
	clk := testkit.NewClock()
	s, err := session.New(session.Config{Scenario: scenario, Workers: 3, Interval: interval,
		Clock: clk, Scenarios: scenarios.Config{Clock: clock.Real}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var snap session.Snapshot
	for range 6 {
		clk.Advance(interval)
		snap = testkit.Recv(t, scenario+"'s next sample", 0, s.Samples())
	}
	realSnapshots.Store(scenario, snap)
	return snap
}

// vary returns snap as the k-th of a run of samples 250ms apart, every
// figure drawn at random across its range (n/a included), the shape (the
// workers, the sizes tried, the readouts present) unchanged.
func vary(snap session.Snapshot, k int, r *rand.Rand) session.Snapshot {
	lat := func() hist.Summary {
		if r.IntN(8) == 0 {
			return hist.Summary{}
		}
		d := time.Duration(math.Pow(10, 3+r.Float64()*7)) // 1us..10s
		return hist.Summary{P50: d / 4, P90: d / 2, P99: d, P999: d * 2, Max: d * 3, Count: r.Int64N(1e8)}
	}
	big := func() int64 { return int64(math.Pow(10, r.Float64()*7)) }
	s := snap
	s.Elapsed = session.Seconds(5*time.Second + time.Duration(k)*250*time.Millisecond)
	s.Probe, s.ProbeRaw, s.ProbeTotal, s.Sched, s.SchedRuntime, s.Task, s.Headline = lat(), lat(), lat(), lat(), lat(), lat(), lat()
	s.QueueDepth, s.Running, s.Submitted, s.Completed, s.Failed = big(), r.Int64N(64), big(), big(), big()
	s.ThroughputPerSec = session.Rate(math.Pow(10, r.Float64()*6) / 10)
	s.CPUPercent, s.RSSBytes, s.Goroutines = session.Percent(r.Float64()*200), session.Bytes(big()*1000), int(big())
	s.LoopBusy, s.LoopQueued = session.Share(r.Float64()), int(big())
	s.WorkerBusy = slices.Clone(s.WorkerBusy)
	for i := range s.WorkerBusy {
		s.WorkerBusy[i] = r.Float64() * 1.2
	}
	s.Readouts = slices.Clone(s.Readouts)
	for i := range s.Readouts {
		if s.Readouts[i].Text == "" && !s.Readouts[i].Bool {
			s.Readouts[i].Value, s.Readouts[i].Known = math.Pow(10, r.Float64()*8-3), r.IntN(6) != 0
		}
	}
	s.Sizes = slices.Clone(s.Sizes)
	for i := range s.Sizes {
		s.Sizes[i].Held += time.Duration(k) * 250 * time.Millisecond
		s.Sizes[i].Probe, s.Sizes[i].Headline = lat(), lat()
		s.Sizes[i].Completed = big()
	}
	s.ProbeP99History = append(slices.Clone(s.ProbeP99History), math.Pow(10, r.Float64()*4-1))
	s.QueueDepthHistory = append(slices.Clone(s.QueueDepthHistory), float64(r.IntN(40)))
	s.WorkersHistory = append(slices.Clone(s.WorkersHistory), float64(s.Workers))
	return s
}

// labels are the words of the dashboard that must hold still: panel
// titles, the names of figures, the axis's marks.
func labels(s session.Snapshot) []string {
	out := []string{"▶ " + scenarios.Headline(s.Scenario).Label(), "now", "at the pick", "loop probe p99", "at this size",
		"sizes tried", "held", "Loop p99 ms", "tasks/s", "CPU/wall", "pick:",
		"loop and workers", "pool queue", "running", "failed", "loop [", "Loop queue", "CPU", "RSS",
		"Loop probe p99 ms", "-10s", "? help", "q quit"}
	for _, r := range s.Readouts {
		out = append(out, r.Label)
	}
	return out
}

// where finds each label on screen: the row and column of its first
// occurrence as a whole token, "" when absent.
func where(screen []string, labels []string) map[string]string {
	at := map[string]string{}
	for _, l := range labels {
		for row, line := range screen {
			col := tokenIndex(line, l)
			if col >= 0 {
				at[l] = fmt.Sprintf("%d:%d", row, col)
				break
			}
		}
	}
	return at
}

// tokenIndex is the rune column of label in line where it stands alone
// (no letter or digit right before or after), -1 when it does not.
func tokenIndex(line, label string) int {
	alnum := func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' }
	for from := 0; ; {
		i := strings.Index(line[from:], label)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(line[:i])
		after, _ := utf8.DecodeRuneInString(line[i+len(label):])
		if !(i > 0 && alnum(before) || i+len(label) < len(line) && alnum(after)) {
			return utf8.RuneCountInString(line[:i])
		}
		_, size := utf8.DecodeRuneInString(line[i:])
		if size == 0 {
			return -1
		}
		from = i + size
	}
}

// TestLayoutStableOnEveryScenario: on every
// scenario, at 80x24, 100x30 and 160x48, over 40 frames 250ms apart whose
// figures change wildly, every label stays at the same row and column of
// the virtual screen.
func TestLayoutStableOnEveryScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every scenario")
	}
	for _, name := range scenarios.Names() {
		base := realSnapshot(t, name)
		base.Sizes = []session.SizeRow{
			{Scenario: name, Workers: 0, GOMAXPROCS: 2, Held: 8 * time.Second, HeadlineName: "x"},
			{Scenario: name, Workers: 1, GOMAXPROCS: 2, Held: 8 * time.Second, HeadlineName: "x"},
			{Scenario: name, Workers: 3, GOMAXPROCS: 2, Held: 2 * time.Second, HeadlineName: "x", Current: true},
		}
		for _, sz := range [][2]int{{80, 24}, {100, 30}, {160, 48}} {
			t.Run(fmt.Sprintf("%s/%dx%d", name, sz[0], sz[1]), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(sz[0]), 7))
				emu := vt.NewEmulator(sz[0], sz[1])
				want := map[string]string{}
				snap := base
				for k := range 40 {
					snap = vary(snap, k, r)
					out := Render(snap, sz[0], sz[1], false)
					_, _ = emu.Write([]byte("\x1b[H\x1b[2J" + strings.ReplaceAll(out, "\n", "\r\n")))
					screen := strings.Split(ansi.Strip(emu.Render()), "\n")
					checkFits(t, out, sz[0], sz[1])
					got := where(screen, labels(snap))
					if k == 0 {
						want = got
						for _, l := range []string{"sizes tried", "loop and workers", "pool queue", "Loop queue", "pick:"} {
							if got[l] == "" {
								t.Errorf("no %q on screen:\n%s", l, strings.Join(screen, "\n"))
							}
						}
						continue
					}
					for l, at := range want {
						if got[l] != at {
							t.Errorf("frame %d: %q at %s, was at %s:\n%s", k, l, got[l], at, strings.Join(screen, "\n"))
							return
						}
					}
				}
			})
		}
	}
}

// TestDetailStable: the d view's pool and process figures are padded, so
// over 40 frames whose counts, CPU and RSS change wildly every label of
// that panel stays at its row and column (a breaker saw running, failed,
// tasks/s, RSS and goroutines shift 1-2 columns between frames).
func TestDetailStable(t *testing.T) {
	base := realSnapshot(t, "server")
	labels := []string{"pool and process", "pool since start: submitted", "completed", "running", "pool queue", "failed",
		"tasks/s", "Loop queue", "now", "RSS", "MiB", "goroutines", "latency ms"}
	for _, sz := range [][2]int{{80, 24}, {100, 30}} {
		r := rand.New(rand.NewPCG(uint64(sz[0]), 9))
		emu := vt.NewEmulator(sz[0], sz[1])
		var want map[string]string
		snap := base
		for k := range 40 {
			snap = vary(snap, k, r)
			snap.CPUSeconds = session.CPUTime(r.Float64() * 1e5)
			out := render(snap, sz[0], sz[1], viewState{detail: true})
			_, _ = emu.Write([]byte("\x1b[H\x1b[2J" + strings.ReplaceAll(out, "\n", "\r\n")))
			screen := strings.Split(ansi.Strip(emu.Render()), "\n")
			got := where(screen, labels)
			if k == 0 {
				want = got
				for _, l := range labels {
					if got[l] == "" {
						t.Errorf("%v: no %q in the detail view:\n%s", sz, l, strings.Join(screen, "\n"))
					}
				}
				continue
			}
			for l, at := range want {
				if got[l] != at {
					t.Errorf("%v frame %d: %q at %s, was at %s:\n%s", sz, k, l, got[l], at, strings.Join(screen, "\n"))
					return
				}
			}
		}
	}
}
