package session

import (
	"slices"

	"github.com/offtop/offtop/internal/hist"
	"github.com/offtop/offtop/internal/jsonenc"
)

// AppendJSON appends s as one line of the JSON Lines stream
// (docs/json-lines.md), without its newline: the bytes encoding/json
// writes for s by its field tags and its unit types' MarshalJSON, in
// their order, written without reflection (a search's state, when one has
// run, excepted). A test holds the two equal byte for byte.
func (s *Snapshot) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = s.Schema.appendJSON(jsonenc.Key(b, "schema"))
	b = s.Elapsed.appendJSON(jsonenc.Key(b, "t_s"))
	// Run
	b = jsonenc.String(jsonenc.Key(b, "scenario"), s.Scenario)
	b = jsonenc.Bool(jsonenc.Key(b, "paused"), s.Paused)
	b = jsonenc.Bool(jsonenc.Key(b, "per_task"), s.PerTask)
	b = jsonenc.Bool(jsonenc.Key(b, "priority"), s.Priority)
	b = jsonenc.String(jsonenc.Key(b, "look"), s.Look)
	// Machine
	b = jsonenc.Int(jsonenc.Key(b, "gomaxprocs"), int64(s.GOMAXPROCS))
	b = jsonenc.Int(jsonenc.Key(b, "num_cpu"), int64(s.NumCPU))
	b = s.CPULimit.appendJSON(jsonenc.Key(b, "cpu_limit"))
	b = s.AffinityCPUs.appendJSON(jsonenc.Key(b, "affinity_cpus"))
	b = jsonenc.String(jsonenc.Key(b, "gomaxprocs_source"), s.GOMAXPROCSSource)
	b = jsonenc.Int(jsonenc.Key(b, "suggested_workers"), int64(s.SuggestedWorkers))
	b = jsonenc.String(jsonenc.Key(b, "suggested_rule"), s.SuggestedRule)
	b = jsonenc.Bool(jsonenc.Key(b, "oversubscribed"), s.Oversubscribed)
	b = s.OthersCPUs.appendJSON(jsonenc.Key(b, "others_cpus"))
	b = jsonenc.Bool(jsonenc.Key(b, "machine_busy"), s.MachineBusy)
	// Status
	b = jsonenc.String(jsonenc.Key(b, "load"), s.Load)
	b = s.Readouts.appendJSON(jsonenc.Key(b, "extra"))
	// Pool
	b = jsonenc.Int(jsonenc.Key(b, "workers"), int64(s.Workers))
	b = jsonenc.Int(jsonenc.Key(b, "queue_depth"), s.QueueDepth)
	b = jsonenc.Int(jsonenc.Key(b, "submitted"), s.Submitted)
	b = jsonenc.Int(jsonenc.Key(b, "completed"), s.Completed)
	b = jsonenc.Int(jsonenc.Key(b, "failed"), s.Failed)
	b = jsonenc.Int(jsonenc.Key(b, "running"), s.Running)
	b = jsonenc.Int(jsonenc.Key(b, "rejected"), s.Rejected)
	b = jsonenc.Int(jsonenc.Key(b, "replaced"), s.Replaced)
	b = jsonenc.Int(jsonenc.Key(b, "timed_out"), s.TimedOut)
	b = jsonenc.Int(jsonenc.Key(b, "canceled"), s.Canceled)
	b = jsonenc.Int(jsonenc.Key(b, "abandoned"), s.Abandoned)
	b = jsonenc.Int(jsonenc.Key(b, "stuck"), s.Stuck)
	b = s.ThroughputPerSec.appendJSON(jsonenc.Key(b, "throughput_per_s"))
	b = jsonenc.List(jsonenc.Key(b, "worker_slots"), s.WorkerSlots, func(b []byte, v int) []byte { return jsonenc.Int(b, int64(v)) })
	b = s.WorkerBusy.appendJSON(jsonenc.Key(b, "worker_busy"))
	b = s.WorkerOnCPU.appendJSON(jsonenc.Key(b, "worker_oncpu"))
	b = jsonenc.List(jsonenc.Key(b, "worker_retiring"), s.WorkerRetiring, jsonenc.Bool)
	b = s.Task.AppendJSON(jsonenc.Key(b, "task"))
	b = s.TaskWait.AppendJSON(jsonenc.Key(b, "task_wait"))
	b = s.TaskRun.AppendJSON(jsonenc.Key(b, "task_run"))
	// Loop
	b = s.LoopBusy.appendJSON(jsonenc.Key(b, "loop_busy"))
	b = jsonenc.Int(jsonenc.Key(b, "loop_queued"), int64(s.LoopQueued))
	// Process
	b = s.CPUPercent.appendJSON(jsonenc.Key(b, "cpu_percent"))
	b = s.CPUSeconds.appendJSON(jsonenc.Key(b, "cpu_seconds"))
	b = s.RSSBytes.appendJSON(jsonenc.Key(b, "rss_bytes"))
	b = jsonenc.Int(jsonenc.Key(b, "goroutines"), int64(s.Goroutines))
	// Probes
	b = s.Probe.AppendJSON(jsonenc.Key(b, "probe"))
	b = s.ProbeRaw.AppendJSON(jsonenc.Key(b, "probe_raw"))
	b = s.ProbeTotal.AppendJSON(jsonenc.Key(b, "probe_total"))
	b = jsonenc.Int(jsonenc.Key(b, "probe_missed"), s.ProbeMissed)
	b = s.ProbeStalled.appendJSON(jsonenc.Key(b, "probe_stalled_ms"))
	b = s.Sched.AppendJSON(jsonenc.Key(b, "sched"))
	b = s.SchedRuntime.AppendJSON(jsonenc.Key(b, "sched_runtime"))

	b = s.Sizes.appendJSON(jsonenc.Key(b, "sizes"))
	b = s.Search.appendJSON(jsonenc.Key(b, "search"))
	b = jsonenc.List(jsonenc.Key(b, "endpoints"), s.Endpoints, func(b []byte, e Endpoint) []byte { return e.appendJSON(b) })
	b = jsonenc.Key(b, "load_client")
	if s.LoadClient == nil {
		b = append(b, jsonenc.Null...)
	} else {
		b = s.LoadClient.appendJSON(b)
	}
	// Sampling
	b = jsonenc.Int(jsonenc.Key(b, "samples_missed"), s.SamplesMissed)
	b = s.Interval.appendJSON(jsonenc.Key(b, "interval_ms"))
	b = s.Resolution.appendJSON(jsonenc.Key(b, "resolution_ms"))
	b = s.Window.appendJSON(jsonenc.Key(b, "window_s"))
	b = jsonenc.Bool(jsonenc.Key(b, "final"), s.Final)
	// History
	b = s.ProbeP99History.appendJSON(jsonenc.Key(b, "probe_p99_1s_ms"))
	return append(b, '}')
}

// MarshalJSON is AppendJSON's encoding.
func (s Snapshot) MarshalJSON() ([]byte, error) { return s.AppendJSON(nil), nil }

func (e Endpoint) appendJSON(b []byte) []byte {
	b = append(b, '{')
	b = jsonenc.String(jsonenc.Key(b, "route"), e.Route)
	b = jsonenc.Int(jsonenc.Key(b, "count"), e.Count)
	b = e.RatePerS.appendJSON(jsonenc.Key(b, "rate_per_s"))
	b = e.Latency.AppendJSON(jsonenc.Key(b, "latency"))
	b = e.Status.appendJSON(jsonenc.Key(b, "status"))
	return append(b, '}')
}

func (c StatusCounts) appendJSON(b []byte) []byte {
	b = append(b, '{')
	b = jsonenc.Int(jsonenc.Key(b, "1xx"), c.S1xx)
	b = jsonenc.Int(jsonenc.Key(b, "2xx"), c.S2xx)
	b = jsonenc.Int(jsonenc.Key(b, "3xx"), c.S3xx)
	b = jsonenc.Int(jsonenc.Key(b, "4xx"), c.S4xx)
	b = jsonenc.Int(jsonenc.Key(b, "5xx"), c.S5xx)
	return append(b, '}')
}

func (c *LoadClient) appendJSON(b []byte) []byte {
	b = append(b, '{')
	b = jsonenc.String(jsonenc.Key(b, "spec"), c.Spec)
	b = jsonenc.List(jsonenc.Key(b, "targets"), c.Targets, func(b []byte, t LoadTarget) []byte { return t.appendJSON(b) })
	return append(b, '}')
}

func (t LoadTarget) appendJSON(b []byte) []byte {
	b = append(b, '{')
	b = jsonenc.String(jsonenc.Key(b, "target"), t.Target)
	b = jsonenc.String(jsonenc.Key(b, "route"), t.Route)
	b = t.AskedPerS.appendJSON(jsonenc.Key(b, "asked_per_s"))
	b = jsonenc.Int(jsonenc.Key(b, "sent"), t.Sent)
	b = jsonenc.Int(jsonenc.Key(b, "in_flight"), t.InFlight)
	b = t.RatePerS.appendJSON(jsonenc.Key(b, "rate_per_s"))
	b = t.Latency.AppendJSON(jsonenc.Key(b, "latency"))
	b = t.Status.appendJSON(jsonenc.Key(b, "status"))
	b = jsonenc.Int(jsonenc.Key(b, "errors"), t.Errors)
	b = jsonenc.Int(jsonenc.Key(b, "errors_window"), t.ErrorsWindow)
	b = jsonenc.String(jsonenc.Key(b, "error"), t.Error)
	b = jsonenc.Int(jsonenc.Key(b, "late"), t.Late)
	b = t.LateMax.appendJSON(jsonenc.Key(b, "late_max_ms"))
	return append(b, '}')
}

func (j SizeJSON) appendJSON(b []byte) []byte {
	opt := func(b []byte, v *float64) []byte {
		if v == nil {
			return append(b, jsonenc.Null...)
		}
		return jsonenc.Float(b, *v)
	}
	b = append(b, '{')
	b = jsonenc.String(jsonenc.Key(b, "scenario"), j.Scenario)
	b = jsonenc.Int(jsonenc.Key(b, "workers"), int64(j.Workers))
	b = jsonenc.Int(jsonenc.Key(b, "gomaxprocs"), int64(j.GOMAXPROCS))
	b = jsonenc.Bool(jsonenc.Key(b, "priority"), j.Priority)
	b = jsonenc.Float(jsonenc.Key(b, "held_s"), j.HeldS)
	b = jsonenc.Float(jsonenc.Key(b, "idle_s"), j.IdleS)
	b = opt(jsonenc.Key(b, "probe_p99_ms"), j.ProbeP99MS)
	b = opt(jsonenc.Key(b, "probe_max_ms"), j.ProbeMaxMS)
	b = jsonenc.Int(jsonenc.Key(b, "probe_count"), j.ProbeCount)
	b = jsonenc.String(jsonenc.Key(b, "headline"), j.Headline)
	b = opt(jsonenc.Key(b, "headline_p99_ms"), j.HeadlineP99MS)
	b = jsonenc.Int(jsonenc.Key(b, "headline_count"), j.HeadlineCount)
	b = jsonenc.Float(jsonenc.Key(b, "throughput_per_s"), j.ThroughputPerS)
	b = opt(jsonenc.Key(b, "cpu_per_wall"), j.CPUPerWall)
	b = jsonenc.Key(b, "answer_ok")
	if j.AnswerOK == nil {
		b = append(b, jsonenc.Null...)
	} else {
		b = jsonenc.Bool(b, *j.AnswerOK)
	}
	b = jsonenc.Bool(jsonenc.Key(b, "current"), j.Current)
	b = jsonenc.Int(jsonenc.Key(b, "unsettled"), j.Unsettled)
	b = appendServed(jsonenc.Key(b, "served"), j.Served)
	b = opt(jsonenc.Key(b, "others_cpus"), j.OthersCPUs)
	b = jsonenc.Bool(jsonenc.Key(b, "machine_busy"), j.MachineBusy)
	return append(b, '}')
}

// appendServed writes m as encoding/json writes a map: keys in byte
// order, null when nil.
func appendServed(b []byte, m map[string]hist.Summary) []byte {
	if m == nil {
		return append(b, jsonenc.Null...)
	}
	var buf [16]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for _, k := range keys {
		b = m[k].AppendJSON(jsonenc.Key(b, k))
	}
	return append(b, '}')
}
