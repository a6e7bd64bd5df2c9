package scenarios_test

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"go.uber.org/goleak"
)

// objectsRounds runs breakeven on objects at scale and workers until it
// has 2 rounds.
func objectsRounds(t *testing.T, workers int, scale float64) session.Snapshot {
	t.Helper()
	return untilBatches(t, session.Config{Scenario: "breakeven", Workers: workers, Scale: scale,
		Scenarios: scenarios.Config{BreakevenPayload: scenarios.PayloadObjects}}, 2)
}

// TestBreakevenObjectsAnswersAtEverySize: the objects go to the pool
// serialised and come back whole, moved by pointer, and summed in place,
// all to the same sum, inline (workers 0) and on a worker.
func TestBreakevenObjectsAnswersAtEverySize(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, w := range []int{0, 1} {
		snap := objectsRounds(t, w, 0.01)
		if ok, _ := readout(snap, "answer_ok"); !ok.Known || ok.Value != 1 {
			t.Errorf("workers %d: answer_ok = %+v", w, ok)
		}
		for _, k := range []string{"objects_blocked_ms", "objects_round_trip_ms", "objects_inline_sum_ms", "objects_move_ms"} {
			if r, _ := readout(snap, k); !r.Known || r.Value <= 0 {
				t.Errorf("workers %d: %s = %+v", w, k, r)
			}
		}
		if n, _ := readout(snap, "objects"); n.Value != 10000 {
			t.Errorf("objects = %+v, want 10000 at scale 0.01", n)
		}
	}
}

// TestBreakevenPayloadKnobSwitches: o switches to objects and back.
func TestBreakevenPayloadKnobSwitches(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := session.New(session.Config{Scenario: "breakeven", Workers: 1, Scale: 0.01,
		Interval: 20 * time.Millisecond, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Apply(session.Action{Kind: session.Turn, Key: "o"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := readout(s.Snapshot(), "objects_blocked_ms"); !ok {
		// the overlay has the status of the last sample; wait for one
		<-s.Samples()
		<-s.Samples()
		if _, ok := readout(s.Snapshot(), "objects_blocked_ms"); !ok {
			t.Error("after o: no objects readouts")
		}
	}
	if err := s.Apply(session.Action{Kind: session.Turn, Key: "o"}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		<-s.Samples()
	}
	if _, ok := readout(s.Snapshot(), "objects_blocked_ms"); ok {
		t.Error("after o twice: still objects")
	}
}
