package workload

import "testing"

// An attached program's readouts are labelled without their unit suffix
// (the value says it) and with their words spaced; the Node agent's
// figures by their names.
func TestLabelOf(t *testing.T) {
	for key, want := range map[string]string{
		"eld_p99_ms":      "ELD p99 raw",
		"eld_max_ms":      "ELD max raw",
		"elu_main":        "ELU main",
		"elu_w0_total":    "ELU w0 total",
		"heap_used_bytes": "heap used",
		"libuv_threads":   "libuv threads",
		"wall_s":          "wall",
		"served_ping_rps": "served ping",
		"_ms":             " ms",
		"answer_ok":       "answer ok",
	} {
		if got := LabelOf(key); got != want {
			t.Errorf("LabelOf(%q) = %q, want %q", key, got, want)
		}
	}
}

// UnitOf reads the naming rule's suffixes; a key with none is a count.
func TestUnitOf(t *testing.T) {
	for key, want := range map[string]Unit{
		"ping_p99_ms": UnitMS, "throughput_per_s": UnitPerSec, "wall_s": UnitSeconds, "cpu_seconds": UnitSeconds,
		"served_ping_rps": UnitRPS, "cpu_pct": UnitPercent, "cpu_percent": UnitPercent, "heap_used_bytes": UnitBytes,
		"payload_kb": UnitKiB, "loops": Count, "elu_main": Count,
	} {
		if got := UnitOf(key); got != want {
			t.Errorf("UnitOf(%q) = %v, want %v", key, got, want)
		}
	}
}
