//go:build shape && linux

package pool

import (
	"runtime"
	"testing"

	"github.com/offtop/offtop/internal/shape"
)

// TestPriorityLeavesTheLoopIdle: at workers =
// cores, in 3 interleaved rounds of 1000 tasks of 1 ms CPU, the Loop
// probe's p99 beside priority workers is at most 2x the idle Loop's, and
// their tasks/s within 5% of the plain pool's (medians).
func TestPriorityLeavesTheLoopIdle(t *testing.T) {
	shape.Judge(t)
	slow := shape.Watch(t)
	const tasks, rounds = 1000, 3
	cores := runtime.NumCPU()
	plain, prio := &approaches[0], &approaches[1]
	var idle, pl, pr []probeFigures
	for range rounds {
		idle = append(idle, probeBeside(t, nil, 0, tasks))
		pl = append(pl, probeBeside(t, plain, cores, tasks))
		pr = append(pr, probeBeside(t, prio, cores, tasks))
	}
	i, p, q := medianFigures(idle), medianFigures(pl), medianFigures(pr)
	t.Logf("Loop p99: idle %v, plain %v, priority %v; tasks/s plain %.0f, priority %.0f",
		i.p99, p.p99, q.p99, p.tasksPerS, q.tasksPerS)
	slow()
	if q.p99 > 2*i.p99 {
		t.Errorf("Loop p99 beside %d priority workers %v, over 2x the idle Loop's %v", cores, q.p99, i.p99)
	}
	if q.tasksPerS < 0.95*p.tasksPerS {
		t.Errorf("priority workers ran %.0f tasks/s, under 95%% of the plain pool's %.0f", q.tasksPerS, p.tasksPerS)
	}
}
