package sweep

import (
	"fmt"
	"strings"
	"time"

	"github.com/offtop/offtop/internal/runq"
)

// MachineCheck is how long each of a sweep's two machine checks spins.
const MachineCheck = 300 * time.Millisecond

// Machine is what a sweep read of the machine before its first run and
// after its last (Config.CheckMachine): the run delay of threads spinning
// on every CPU (runq). A share above runq.MaxRunDelay means other work
// competed for the cores, and every figure of the table moves with it.
type Machine struct {
	// RunDelayBefore and RunDelayAfter are shares 0..1; After is null for
	// a sweep stopped before it could measure again.
	RunDelayBefore float64  `json:"run_delay_before"`
	RunDelayAfter  *float64 `json:"run_delay_after"`
	// Limit is runq.MaxRunDelay; Busy says either reading was above it.
	Limit float64 `json:"run_delay_limit"`
	Busy  bool    `json:"busy"`
	// before and after are the readings, for Line.
	before, after *runq.Reading
}

// check reads the machine into m: before the runs, or after them.
func (m *Machine) check(after bool) {
	if r, ok := runq.Measure(MachineCheck); ok {
		m.record(r, after)
	}
}

// record files r as the reading before the runs or after them.
func (m *Machine) record(r runq.Reading, after bool) {
	if after {
		m.after, m.RunDelayAfter = &r, &r.RunDelay
	} else {
		m.before, m.RunDelayBefore = &r, r.RunDelay
	}
	m.Limit = runq.MaxRunDelay
	m.Busy = m.Busy || r.Busy()
}

// Line is the machine's one line under the table, such as "machine: quiet
// (spinning threads waited for a CPU 1% before the runs, 2% after; busy
// above 10%)" or "machine: BUSY (spinning threads waited for a CPU 66%
// before the runs, 76% after; load average 5.60, 7.45; busy above 10%):
// every figure here measures the neighbours too".
func (m *Machine) Line() string {
	var waits, loads []string
	for _, x := range []struct {
		when string
		r    *runq.Reading
	}{{"before the runs", m.before}, {"after", m.after}} {
		if x.r == nil {
			continue
		}
		waits = append(waits, fmt.Sprintf("%.0f%% %s", 100*x.r.RunDelay, x.when))
		if x.r.LoadAvg >= 0 {
			loads = append(loads, fmt.Sprintf("%.2f", x.r.LoadAvg))
		}
	}
	if len(waits) == 0 {
		return "machine: not measured (no /proc/thread-self/schedstat)"
	}
	what := fmt.Sprintf("spinning threads waited for a CPU %s", strings.Join(waits, ", "))
	if !m.Busy {
		return fmt.Sprintf("machine: quiet (%s; busy above %.0f%%)", what, 100*runq.MaxRunDelay)
	}
	if len(loads) > 0 {
		what += "; load average " + strings.Join(loads, ", ")
	}
	return fmt.Sprintf("machine: BUSY (%s; busy above %.0f%%): every figure here measures the neighbours too", what, 100*runq.MaxRunDelay)
}
