package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/offtop/offtop/internal/session"
)

// Summary is what offtop prints when a run ends: per scenario, each pool size held, from the session's own per-size
// accounting (session.SizeRow) in the last sample, printed by the same
// renderer as the live "sizes tried" panel. Its figures are exactly those
// of the last headless line's sizes field.
//
// Summary is not safe for concurrent use: one goroutine Adds, then Writes.
type Summary struct {
	First string // the scenario the run started with, for a run too short for a sample
	last  session.Snapshot
	n     int // samples added
	end   time.Duration
}

// Add takes the next sample; only the last one is printed (each carries
// every size row since the start).
func (sm *Summary) Add(s session.Snapshot) {
	if !s.Disconnected.IsZero() { // attached, the program gone: no figures
		return
	}
	sm.n++
	sm.last = s
}

// Finish ends the summary at end, the run's wall time since the session
// started. The rows stay those of the last sample, so the summary and the
// last JSON line agree figure for figure.
func (sm *Summary) Finish(end time.Duration) {
	sm.end = end
	if sm.last.Remote == "" { // attached, Elapsed is the program's age, not the run's
		sm.end = max(end, time.Duration(sm.last.Elapsed))
	}
}

// Write prints the summary to w through lipgloss, so colours follow the
// terminal and NO_COLOR. Call Finish first.
func (sm *Summary) Write(w io.Writer) error {
	_, err := lipgloss.Fprint(w, sm.String())
	return err
}

// String is the summary's text.
func (sm *Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "offtop ran %s", secs(sm.end))
	if sm.n == 0 {
		fmt.Fprintf(&b, ": %s, no sample taken yet\n", sm.First)
		return b.String()
	}
	if sm.last.Remote != "" {
		// Attached: every figure from here on is the program's, since it
		// started, not offtop's.
		fmt.Fprintf(&b, " attached to %s at %s; %s, since it started %s ago:", sm.last.Scenario, sm.last.Remote,
			sm.last.Scenario, secs(time.Duration(sm.last.Elapsed)))
	} else {
		b.WriteString(":")
	}
	procs := "GOMAXPROCS"
	if sm.last.GOMAXPROCSSource == "node" { // os.availableParallelism()
		procs = "parallelism"
	}
	fmt.Fprintf(&b, " %s %d, NumCPU %d", procs, sm.last.GOMAXPROCS, sm.last.NumCPU)
	if sm.last.CPUPercent >= 0 && sm.last.CPUSeconds >= 0 { // NaN: unknown
		fmt.Fprintf(&b, ", CPU %.2fs", sm.last.CPUSeconds)
	}
	b.WriteString("\n")
	for _, e := range sm.last.Earlier { // attached: programs before this one on the address
		fmt.Fprintf(&b, "earlier on %s: pid %d, since %s until %s (then replaced), its own rows:\n",
			sm.last.Remote, e.PID, e.Since.Format("15:04:05"), e.Until.Format("15:04:05"))
		sm.sizes(&b, e.Sizes, false)
	}
	if len(sm.last.Earlier) > 0 {
		fmt.Fprintf(&b, "now on %s: pid %d, since %s:\n", sm.last.Remote, sm.last.PID, sm.last.Since.Format("15:04:05"))
	}
	sm.sizes(&b, sm.last.Sizes, true)
	b.WriteString("Loop: probe lateness, corrected; every figure measured at that size (> now, * pick)\n")
	return b.String()
}

// sizes writes rows, a table per scenario, each with its best line, the
// time a row was idle (attached: no pool task and no request), not in it, and,
// with search, the size search's pick and fit of the last sample.
func (sm *Summary) sizes(b *strings.Builder, rows session.SizeRows, search bool) {
	src := sm.last
	if !search {
		src.Search = session.Search{}
	}
	for _, name := range Scenarios(rows) {
		t := For(rows, name, MinHeld)
		pick := PickFor(src, t) // the live panel's own answer
		if pick.From == FromSearch {
			t = t.WithBest(pick.Workers)
		}
		held := t.BriefHeld.Seconds()
		answer := "n/a"
		for _, r := range t.Rows {
			held += r.HeldS
		}
		var idle []string
		for _, r := range rows {
			if r.Scenario == name && r.Idle.Round(100*time.Millisecond) > 0 { // as secs prints it
				idle = append(idle, fmt.Sprintf("%s %s", SizeName(r.Workers), secs(r.Idle)))
			}
			// a wrong answer at a brief size too
			if ok := r.JSON().AnswerOK; r.Scenario == name && ok != nil && (answer == "n/a" || !*ok) {
				answer = Answer(ok)
			}
		}
		fmt.Fprintf(b, "%s %ss  answer_ok %s\n", name, Figure(held), answer)
		for _, l := range t.Lines(true) {
			b.WriteString("  " + l + "\n")
		}
		if l := t.BriefLine(MinHeld); l != "" {
			b.WriteString("  " + l + "\n")
		}
		for _, l := range servedLines(rows, name) {
			b.WriteString("  " + l + "\n")
		}
		if search { // the load runs against the program of now, not an earlier one
			for _, l := range clientLines(src.LoadClient) {
				b.WriteString("  " + l + "\n")
			}
		}
		if len(idle) > 0 {
			b.WriteString("  idle, no pool task and no request (in no figure above): " + strings.Join(idle, ", ") + "\n")
		}
		if t.AnyBusy() {
			b.WriteString("  " + BusyRule + "\n")
		}
		b.WriteString("  " + pick.Line + "\n")
		if pick.Figures != "" {
			b.WriteString("  " + pick.Figures + "\n")
		}
		if q := src.Search; pick.From == FromSearch { // the a key's search
			b.WriteString("  auto: " + q.Fit.ModelLine() + "\n  " + pick.Fit + ": " + pick.Verdict + "\n")
		}
	}
}

// servedLines are, per size of scenario name whose server answered
// requests, the latency it measured per endpoint from arrival to
// response, whoever sent them: "served at 1 worker (server side, any
// client): /fast p99 12.3 ms of 400, /ping p99 0.210 ms of 812". An
// endpoint is a scenario's name ("fast") or an attached program's route
// ("/fib"); each prints with one leading slash.
func servedLines(rows session.SizeRows, name string) []string {
	var out []string
	for _, r := range rows {
		if r.Scenario != name || len(r.Served) == 0 {
			continue
		}
		var eps []string
		for _, ep := range slices.Sorted(maps.Keys(r.Served)) {
			if s := r.Served[ep]; s.Count > 0 {
				eps = append(eps, fmt.Sprintf("/%s p99 %s ms of %d", strings.TrimPrefix(ep, "/"), Figure(s.P99.Seconds()*1e3), s.Count))
			}
		}
		if len(eps) > 0 {
			out = append(out, fmt.Sprintf("served at %s (server side, any client): %s", SizeName(r.Workers), strings.Join(eps, ", ")))
		}
	}
	return out
}

// clientLines are, per pool size, the latency offtop's own load client
// read (attach --load: from each request's due time, of the requests due
// while that size was in force): "client at 1 worker (offtop's load,
// from due): /ping p99 1.20 ms of 250". None without a load.
func clientLines(lc *session.LoadClient) []string {
	if lc == nil {
		return nil
	}
	sizes := map[int][]string{}
	for _, t := range lc.Targets {
		for n, s := range t.BySize {
			if s.Count > 0 {
				sizes[n] = append(sizes[n], fmt.Sprintf("%s p99 %s ms of %d", t.Target, Figure(s.P99.Seconds()*1e3), s.Count))
			}
		}
	}
	var out []string
	for _, n := range slices.Sorted(maps.Keys(sizes)) {
		out = append(out, fmt.Sprintf("client at %s (offtop's load, from due): %s", SizeName(n), strings.Join(sizes[n], ", ")))
	}
	return out
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// StopNote tells, after the summary, what the stop did to a Loop stall
// in progress, from the last sample: cut short (the
// stall scenario's stalls_cut; the probe recorded it, so the probe max
// above includes it) or, when the Loop was still blocked as the run
// ended, for how long (probe_stalled_ms; not in the probe max). Nothing
// when neither.
func (sm *Summary) StopNote(w io.Writer) error {
	last := sm.last
	var cut, cutMS float64 // stalls cut (one at most: the stop's), and its length
	for _, r := range last.Readouts {
		switch {
		case r.Key == "stalls_cut" && r.Known:
			cut = r.Value
		case r.Key == "last_stall_ms" && r.Known:
			cutMS = r.Value
		}
	}
	var err error
	if cut > 0 {
		_, err = fmt.Fprintf(w, "the stop cut a Loop stall short after %.0f ms (in the probe max)\n", cutMS)
	}
	if last.ProbeStalled > 0 {
		_, err = fmt.Fprintf(w, "the Loop was still blocked at the end, for %.0f ms: not in the probe max\n",
			float64(last.ProbeStalled)/float64(time.Millisecond))
	}
	return err
}
