package pool

import (
	"errors"
	"testing"
)

// A task's returned error is what done gets, as it is; the task counts
// Failed, on the pool and on its worker, and the worker is not replaced.
// The same holds for a task run by Inline at size 0.
func TestSubmitErrCountsFailed(t *testing.T) {
	boom := errors.New("boom")
	var ex manualExec
	p := newPool(t, Options{Size: 1, Inline: ex.Post})
	done := make(chan error, 2)
	report := func(err error) { done <- err }
	if err := p.SubmitErr(func() error { return boom }, report); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, "done", done); err != boom {
		t.Fatalf("done got %v, want the task's own error", err)
	}
	if err := p.SubmitErr(func() error { return nil }, report); err != nil {
		t.Fatal(err)
	}
	if err := recv(t, "done", done); err != nil {
		t.Fatalf("done got %v for a task that returned nil", err)
	}
	s := p.Stats()
	checkInvariant(t, s)
	if s.Failed != 1 || s.Completed != 1 || s.Replaced != 0 || s.Workers[0].Failed != 1 {
		t.Fatalf("failed %d completed %d replaced %d worker failed %d; want 1 1 0 1",
			s.Failed, s.Completed, s.Replaced, s.Workers[0].Failed)
	}

	if err := p.Resize(0); err != nil {
		t.Fatal(err)
	}
	if err := p.SubmitErr(func() error { return boom }, report); err != nil {
		t.Fatal(err)
	}
	for _, fn := range ex.take() {
		fn()
	}
	if err := recv(t, "inline done", done); err != boom {
		t.Fatalf("inline: done got %v, want the task's own error", err)
	}
	if s := p.Stats(); s.Failed != 2 {
		t.Fatalf("inline: failed %d, want 2", s.Failed)
	}
}
