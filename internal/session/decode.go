package session

import (
	"encoding/json"
	"math"
	"time"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/sysinfo"
)

// Decoder turns the JSON Lines of a Snapshot stream (an agent's, or
// --headless output) back into Snapshots, for a dashboard in another
// process. A line carries one sample, so the charts' history is rebuilt
// here, one point per line, as the sampler builds it; a Decoder is for one
// stream, read in order, and not safe for concurrent use. Its zero value
// is ready.
//
// What JSON does not carry comes back as the nearest thing: a readout's
// label is its key and its unit the one its key names (scenarios.UnitOf);
// the usable CPUs are rebuilt from num_cpu, affinity_cpus and cpu_limit;
// the others reading is of the affinity mask's CPUs (num_cpu when
// unknown); a headline other than the probe is empty; a size row's Completed and CPUSeconds are its rates
// times its held time.
type Decoder struct{ hist history }

// Reset empties the rebuilt history (after a reconnect, or an r).
func (d *Decoder) Reset() { d.hist.reset() }

// Snapshot decodes one line, adding its point to the history. Its
// Schema is what the line said; the caller refuses another version.
func (d *Decoder) Snapshot(line []byte) (Snapshot, error) {
	s := Snapshot{Process: Process{CPUPercent: -1, RSSBytes: -1}, Machine: Machine{OthersCPUs: -1}} // unknown unless the line says
	if err := json.Unmarshal(line, &s); err != nil {
		return Snapshot{}, err
	}
	s.UsableCPUs = sysinfo.CPUs{NumCPU: s.NumCPU, Affinity: int(s.AffinityCPUs), Quota: float64(s.CPULimit)}.Usable()
	s.OthersOf = s.NumCPU // the reading's CPUs are the affinity mask's
	if s.AffinityCPUs > 0 {
		s.OthersOf = int(s.AffinityCPUs)
	}
	if scenarios.Headline(s.Scenario).FromProbe {
		s.Headline = s.Probe // the window of another headline is not in the stream
	}
	d.hist.add(&s, s.ProbeP99History.Last(), float64(s.QueueDepth), float64(s.Workers))
	return s, nil
}

// Row is the SizeRow j was made from (Completed and CPUSeconds from its
// rates and held time).
func (j SizeJSON) Row() SizeRow {
	r := SizeRow{
		Scenario: j.Scenario, Workers: j.Workers, GOMAXPROCS: j.GOMAXPROCS,
		Held:         time.Duration(j.HeldS * float64(time.Second)),
		HeadlineName: j.Headline, Current: j.Current, Unsettled: j.Unsettled,
		Probe:    hist.Summary{P99: hist.FromMS(j.ProbeP99MS), Max: hist.FromMS(j.ProbeMaxMS), Count: j.ProbeCount},
		Headline: hist.Summary{P99: hist.FromMS(j.HeadlineP99MS), Count: j.HeadlineCount},
	}
	r.Completed = int64(math.Round(j.ThroughputPerS * j.HeldS))
	if j.CPUPerWall != nil {
		r.CPUKnown, r.CPUSeconds = true, *j.CPUPerWall*j.HeldS
	}
	if j.AnswerOK != nil {
		r.AnswerKnown, r.AnswerOK = true, *j.AnswerOK
	}
	if j.OthersCPUs != nil {
		r.OthersKnown, r.OthersSeconds, r.OthersWall = true, *j.OthersCPUs*j.HeldS, r.Held
	}
	r.MachineBusy = j.MachineBusy
	return r
}
