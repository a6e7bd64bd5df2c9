//go:build shape

package scenarios_test

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/shape"
	"go.uber.org/goleak"
)

// Seed 000 section 6 through a real session: file reads submitted while a
// burst of hashes holds the small pool wait behind it (head-of-line
// blocking); between bursts they take next to nothing. Every hash equals
// its expected key and every read its checksum.
func TestLoginReadsWaitBehindBursts(t *testing.T) {
	shape.Judge(t)
	defer goleak.VerifyNone(t)
	s, err := session.New(session.Config{Scenario: "login", Workers: 2, Scale: 0.05,
		Interval: 50 * time.Millisecond, Window: 2 * time.Second,
		Scenarios: scenarios.Config{LoginBurstGap: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deadline := time.After(25 * time.Second)
	var last session.Snapshot
loop:
	for {
		select {
		case snap := <-s.Samples():
			last = snap
			if r, ok := readout(snap, "answer_ok"); ok && r.Known && r.Value != 1 {
				t.Fatalf("answer_ok false: %+v", snap.Readouts)
			}
			h, _ := readout(snap, "hashes")
			rb, _ := readout(snap, "read_burst_p99_ms")
			rq, _ := readout(snap, "read_between_p99_ms")
			if h.Value >= 120 && rb.Known && rq.Known {
				break loop
			}
		case <-deadline:
			t.Fatalf("no 3 bursts in 25s: %+v", last.Readouts)
		}
	}
	if r, _ := readout(last, "answer_ok"); !r.Known || r.Value != 1 {
		t.Fatalf("answer_ok %+v", r)
	}
	during, between := num(t, last, "read_burst_p99_ms"), num(t, last, "read_between_p99_ms")
	hash := num(t, last, "hash_p99_ms")
	t.Logf("read p99 in bursts %.2fms, between %.2fms; hash p99 %.1fms, CPU/hash %.2fms, last burst %.0fms",
		during, between, hash, num(t, last, "cpu_per_hash_ms"), num(t, last, "burst_ms"))
	// A read submitted as a burst starts waits behind all of its hashes:
	// its wait is about the whole burst. Between bursts nothing is ahead.
	if burst := num(t, last, "burst_ms"); during < burst/2 || during < 2*between {
		t.Errorf("reads in bursts p99 %.2fms: not about the burst (%.0fms) and well above between (%.2fms)",
			during, burst, between)
	}
	s.Close()
}
