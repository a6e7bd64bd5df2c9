package scenarios_test

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sysinfo"
	"go.uber.org/goleak"
)

// login starts at 4 workers (libuv's pool) when no size is given, while
// the suggestion shown keeps its CPU rule (one fewer than the CPUs: the
// login server's Loop keeps a core); the others start at the suggestion.
func TestLoginDefaultsToFourWorkers(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, n := range []int{1, 2, 16} {
		cpus := sysinfo.CPUs{NumCPU: n, Affinity: n}
		if got := session.StartWorkers("login", cpus); got != scenarios.LoginWorkers {
			t.Errorf("StartWorkers(login, %d) = %d, want %d", n, got, scenarios.LoginWorkers)
		}
	}
	four := sysinfo.CPUs{NumCPU: 4, Affinity: 4}
	for name, want := range map[string]int{"server": 3, "login": 3, "count": 4} {
		if got, rule := session.Suggest(name, four); got != want {
			t.Errorf("Suggest(%s, 4 CPUs) = %d (%s), want %d", name, got, rule, want)
		}
	}
	if got := session.StartWorkers("count", four); got != 4 {
		t.Errorf("StartWorkers(count, 4) = %d, want 4", got)
	}
	s, err := session.New(session.Config{Scenario: "login", Workers: -1, Scale: 0.01,
		Interval: 20 * time.Millisecond, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if snap := s.Snapshot(); snap.Workers != 4 || snap.SuggestedRule == "" {
		t.Errorf("workers %d, suggested %d (%q), want 4 workers and a rule", snap.Workers, snap.SuggestedWorkers, snap.SuggestedRule)
	}
	s.Close()
}
