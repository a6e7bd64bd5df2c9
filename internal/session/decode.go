package session

import (
	"math"
	"slices"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
)

// Decoder turns the JSON Lines of a Snapshot stream (an agent's, or
// --headless output) back into Snapshots, for a dashboard in another
// process. A line carries one sample, so the charts' history is rebuilt
// here, one point per line, as the sampler builds it; a Decoder is for one
// stream, read in order, and not safe for concurrent use. Its zero value
// is ready.
//
// What JSON does not carry comes back as the nearest thing: a readout's
// label is its key; a size row's Completed and CPUSeconds are its rates
// times its held time.
type Decoder struct{ hist history }

// Reset empties the rebuilt history (after a reconnect, or an r).
func (d *Decoder) Reset() { d.hist.reset() }

// Snapshot decodes j, adding its point to the history.
func (d *Decoder) Snapshot(j SnapshotJSON) Snapshot {
	s := Snapshot{
		Elapsed:          time.Duration(j.TS * float64(time.Second)),
		Scenario:         j.Scenario,
		Look:             j.Look,
		Load:             j.Load,
		Paused:           j.Paused,
		PerTask:          j.PerTask,
		Workers:          j.Workers,
		GOMAXPROCS:       j.GOMAXPROCS,
		GOMAXPROCSSource: j.GOMAXPROCSSource,
		NumCPU:           j.NumCPU,
		SuggestedWorkers: j.SuggestedWorkers,
		SuggestedRule:    j.SuggestedRule,
		Oversubscribed:   j.Oversubscribed,
		QueueDepth:       j.QueueDepth,
		Submitted:        j.Submitted,
		Completed:        j.Completed,
		Failed:           j.Failed,
		Running:          j.Running,
		Rejected:         j.Rejected,
		Replaced:         j.Replaced,
		TimedOut:         j.TimedOut,
		Abandoned:        j.Abandoned,
		Stuck:            j.Stuck,
		ThroughputPerSec: j.ThroughputPerS,
		WorkerSlots:      j.WorkerSlots,
		WorkerBusy:       j.WorkerBusy,
		WorkerOnCPU:      j.WorkerOnCPU,
		WorkerRetiring:   j.WorkerRetiring,
		LoopBusy:         j.LoopBusy,
		LoopQueued:       j.LoopQueued,
		CPUPercent:       -1,
		CPUSeconds:       j.CPUSeconds,
		RSSBytes:         -1,
		Goroutines:       j.Goroutines,
		Probe:            j.Probe.Summary(),
		ProbeRaw:         j.ProbeRaw.Summary(),
		ProbeTotal:       j.ProbeTotal.Summary(),
		ProbeMissed:      j.ProbeMissed,
		ProbeStalled:     time.Duration(j.ProbeStalledMS * float64(time.Millisecond)),
		Sched:            j.Sched.Summary(),
		SchedRuntime:     j.SchedRuntime.Summary(),
		Task:             j.Task.Summary(),
		TaskWait:         j.TaskWait.Summary(),
		SamplesMissed:    j.SamplesMissed,
		Resolution:       time.Duration(j.ResolutionMS * float64(time.Millisecond)),
		Window:           time.Duration(j.WindowS * float64(time.Second)),
	}
	if j.CPULimit != nil {
		s.CPULimit = *j.CPULimit
	}
	if j.AffinityCPUs != nil {
		s.AffinityCPUs = *j.AffinityCPUs
	}
	s.UsableCPUs = float64(s.NumCPU)
	if s.AffinityCPUs > 0 {
		s.UsableCPUs = float64(s.AffinityCPUs)
	}
	if s.CPULimit > 0 {
		s.UsableCPUs = math.Min(s.UsableCPUs, s.CPULimit)
	}
	if j.CPUPercent != nil {
		s.CPUPercent = *j.CPUPercent
	}
	if j.RSSBytes != nil {
		s.RSSBytes = *j.RSSBytes
	}
	s.Headline = s.Probe
	if !scenarios.Headline(s.Scenario).FromProbe {
		s.Headline = hist.Summary{} // the window of a headline is not in the stream
	}
	for _, k := range sortedKeys(j.Extra) {
		r := scenarios.Readout{Key: k, Label: k}
		switch v := j.Extra[k].(type) {
		case bool:
			r.Bool, r.Known = true, true
			if v {
				r.Value = 1
			}
		case float64:
			r.Value, r.Known = v, true
		case string:
			r.Str, r.Text, r.Known = true, v, true
		}
		s.Readouts = append(s.Readouts, r)
	}
	for _, r := range j.Sizes {
		s.Sizes = append(s.Sizes, r.Row())
	}
	if q := j.Search; q != nil {
		s.Search = Search{Running: q.Running, Scenario: q.Scenario, Sizes: q.Sizes, Step: q.Step,
			Hold: time.Duration(q.HoldS * float64(time.Second)), Left: time.Duration(q.LeftS * float64(time.Second)),
			Canceled: q.Canceled, Err: q.Err, Fit: q.Fit}
	}
	p99 := math.NaN()
	if j.ProbeP99SecMS != nil {
		p99 = *j.ProbeP99SecMS
	}
	d.hist.add(&s, p99, float64(j.QueueDepth), float64(j.Workers))
	return s
}

// Summary is the hist.Summary j was made from, to the microsecond.
func (j LatencyJSON) Summary() hist.Summary {
	s := hist.Summary{Count: j.Count, Clamped: j.Clamped}
	s.P50, s.P90, s.P99, s.P999, s.Max = fromMS(j.P50), fromMS(j.P90), fromMS(j.P99), fromMS(j.P999), fromMS(j.Max)
	return s
}

// Row is the SizeRow j was made from (Completed and CPUSeconds from its
// rates and held time).
func (j SizeJSON) Row() SizeRow {
	r := SizeRow{
		Scenario: j.Scenario, Workers: j.Workers, GOMAXPROCS: j.GOMAXPROCS,
		Held:         time.Duration(j.HeldS * float64(time.Second)),
		HeadlineName: j.Headline, Current: j.Current, Unsettled: j.Unsettled,
		Probe:    hist.Summary{P99: fromMS(j.ProbeP99MS), Max: fromMS(j.ProbeMaxMS), Count: j.ProbeCount},
		Headline: hist.Summary{P99: fromMS(j.HeadlineP99MS), Count: j.HeadlineCount},
	}
	r.Completed = int64(math.Round(j.ThroughputPerS * j.HeldS))
	if j.CPUPerWall != nil {
		r.CPUKnown, r.CPUSeconds = true, *j.CPUPerWall*j.HeldS
	}
	if j.AnswerOK != nil {
		r.AnswerKnown, r.AnswerOK = true, *j.AnswerOK
	}
	return r
}

func fromMS(v *float64) time.Duration {
	if v == nil {
		return 0
	}
	return time.Duration(math.Round(*v * float64(time.Millisecond)))
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
