package session

import (
	"errors"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/pool"
)

// TestProgramSession pins the agent's engine: it samples and resizes the
// program's pool, refuses what is not there, and leaves the pool open.
func TestProgramSession(t *testing.T) {
	p, s := programSession(t, 2)
	snap := <-s.Samples()
	if snap.Scenario != "svc" || snap.Workers != 2 {
		t.Fatalf("first sample: scenario %q workers %d, want svc 2", snap.Scenario, snap.Workers)
	}
	if err := s.Apply(Action{Kind: SetWorkers, N: 4}); err != nil {
		t.Fatal(err)
	}
	if n := p.Stats().Size; n != 4 {
		t.Fatalf("program's pool has %d workers, want 4", n)
	}
	if err := s.Apply(Action{Kind: Load, N: 1}); !errors.Is(err, ErrAction) {
		t.Fatalf("load in a program: %v, want ErrAction", err)
	}
	if err := s.Apply(Action{Kind: NextScenario}); !errors.Is(err, ErrAction) {
		t.Fatalf("tab in a program: %v, want ErrAction", err)
	}
	s.Close()
	if err := p.Do(func() {}); err != nil {
		t.Fatalf("the session closed the program's pool: %v", err)
	}
}

// programSession is a Program session over a pool of size workers named
// svc, sampling every 10 ms; both are closed at the end of the test.
func programSession(t *testing.T, size int) (*pool.Pool, *Session) {
	t.Helper()
	p, err := pool.New(pool.Options{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	s, err := New(Config{Interval: 10 * time.Millisecond, Program: &Program{Name: "svc", Pool: p}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return p, s
}

func TestProgramWithoutPoolRefusesResize(t *testing.T) {
	s, err := New(Config{Interval: 10 * time.Millisecond, Program: &Program{}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.Snapshot().Scenario; got != DefaultProgramName {
		t.Fatalf("scenario %q, want %q", got, DefaultProgramName)
	}
	if err := s.Apply(Action{Kind: SetWorkers, N: 1}); !errors.Is(err, ErrAction) {
		t.Fatalf("resize with no pool: %v, want ErrAction", err)
	}
	if err := s.Apply(Action{Kind: Reset}); err != nil {
		t.Fatal(err)
	}
}
