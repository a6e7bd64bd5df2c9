//go:build shape && linux

package pool

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/offtop/offtop/internal/shape"
)

// TestPriorityLeavesTheLoopIdle: at workers =
// cores, in 5 interleaved rounds of 1000 tasks of 1 ms CPU (plain and
// priority in turn first, so neither always runs after the other), the
// Loop probe's p99 beside priority workers is at most 2x the idle Loop's,
// and their tasks/s within 5% of the plain pool's (medians). A first
// measurement that misses either is logged and measured once more, and
// the second judged: on the 2-core VM the priority Loop p99 read
// 0.03-0.28 ms in most runs and 1.27 ms in one, idle 0.19-0.26, while a
// pool that did not lower its workers reads 9-36 ms, which a second
// measurement cannot hide.
func TestPriorityLeavesTheLoopIdle(t *testing.T) {
	shape.Judge(t)
	slow := shape.Watch(t)
	problems := measurePriority(t)
	if len(problems) > 0 {
		t.Logf("first measurement missed (%s): measuring once more", strings.Join(problems, "; "))
		problems = measurePriority(t)
	}
	slow()
	for _, p := range problems {
		t.Error(p)
	}
}

// measurePriority runs TestPriorityLeavesTheLoopIdle's rounds and returns
// what misses its limits; it skips t when the idle rounds say the host
// paused the Loop on its own.
func measurePriority(t *testing.T) (problems []string) {
	t.Helper()
	const tasks, rounds = 1000, 5
	cores := runtime.NumCPU()
	plain, prio := &approaches[0], &approaches[1]
	var idle, pl, pr []probeFigures
	for r := range rounds {
		idle = append(idle, probeBeside(t, nil, 0, tasks))
		if r%2 == 1 {
			pr = append(pr, probeBeside(t, prio, cores, tasks))
		}
		pl = append(pl, probeBeside(t, plain, cores, tasks))
		if r%2 == 0 {
			pr = append(pr, probeBeside(t, prio, cores, tasks))
		}
	}
	i, p, q := medianFigures(idle), medianFigures(pl), medianFigures(pr)
	t.Logf("Loop p99: idle %v, plain %v, priority %v; tasks/s plain %.0f, priority %.0f",
		i.p99, p.p99, q.p99, p.tasksPerS, q.tasksPerS)
	// The idle rounds are the control: when their p99 moved more than 4x
	// between rounds, the VM's host paused the Loop on its own, and a
	// sub-ms p99 beside the pool cannot be told from it.
	lo, hi := idle[0].p99, idle[0].p99
	for _, f := range idle {
		lo, hi = min(lo, f.p99), max(hi, f.p99)
	}
	if why := fmt.Sprintf("the idle Loop's p99 moved from %v to %v between rounds, over 4x: the host, not the pool", lo, hi); hi > 4*lo {
		if os.Getenv(shape.ForceEnv) != "force" {
			t.Skipf("not judged: %s", why)
		}
		t.Logf("judged on a busy machine (%s=force): %s", shape.ForceEnv, why)
	}
	if q.p99 > 2*i.p99 {
		problems = append(problems, fmt.Sprintf("Loop p99 beside %d priority workers %v, over 2x the idle Loop's %v", cores, q.p99, i.p99))
	}
	if q.tasksPerS < 0.95*p.tasksPerS {
		problems = append(problems, fmt.Sprintf("priority workers ran %.0f tasks/s, under 95%% of the plain pool's %.0f", q.tasksPerS, p.tasksPerS))
	}
	return problems
}
