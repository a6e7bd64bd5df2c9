// Package shape decides whether a timing shape may be judged on this
// machine now. offtop's tests come in two tiers (README, "Tests"): tests of
// behaviour, which never depend on how fast the machine is, and timing
// shapes (a ratio of tails, an ordering of wall times, a calibration),
// built only with the tag `shape` and judged only where the machine is
// quiet. A busy machine gives "not judged: the machine is busy (...)", a
// skip with the measured reason, never a silent pass and never a failure.
package shape

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/runq"
	"github.com/offtop/offtop/internal/sysinfo"
)

// Busy measures the machine for about d (runq.Measure) and returns why it
// is too busy to judge a timing shape, or "" when it is quiet. It costs d
// of every core. On systems without /proc it reports "" (nothing to
// measure).
func Busy(d time.Duration) string {
	r, ok := runq.Measure(d)
	if !ok || !r.Busy() {
		return ""
	}
	return fmt.Sprintf("%s, above %.0f%%", r, 100*runq.MaxRunDelay)
}

// ForceEnv, set to "force" (OFFTOP_SHAPE=force scripts/shape), makes
// Judge judge on a busy machine too, logging that it was busy: for a shape
// that must run now, its result then measuring the neighbours as well.
const ForceEnv = "OFFTOP_SHAPE"

// Judge skips t with "not judged: the machine is busy (REASON)" when Busy
// says so; otherwise it returns and the caller judges its shape. With
// OFFTOP_SHAPE=force it logs "judged on a busy machine (REASON)" instead
// of skipping.
func Judge(t testing.TB) {
	t.Helper()
	why := Busy(300 * time.Millisecond)
	switch {
	case why == "":
	case os.Getenv(ForceEnv) == "force":
		t.Logf("judged on a busy machine (%s=force): %s", ForceEnv, why)
	default:
		t.Skipf("not judged: the machine is busy (%s)", why)
	}
}

// Watch starts reading how much of the machine others take (every
// process but this one, and the host's steal: sysinfo.OthersCPUs) and
// returns the check to call just before the shape is judged: it skips t
// with "not judged: others took X of N CPUs during the test" when they
// took more than sysinfo.BusyShare since Watch, so neighbours that come
// after Judge cannot fail a shape (OFFTOP_SHAPE=force: it logs that
// instead). For a shape measured inside this process only: its own child
// processes count as others.
func Watch(t testing.TB) (check func()) {
	t.Helper()
	p := sysinfo.NewProcStat("/")
	start := p.ReadMachine()
	return func() {
		t.Helper()
		defer p.Close()
		others, ok := sysinfo.OthersCPUs(start, p.ReadMachine())
		if !ok || !sysinfo.Busy(others, start.CPUs) {
			return
		}
		why := fmt.Sprintf("others took %.2f of %d CPUs during the test, above %.0f%%", others, start.CPUs, 100*sysinfo.BusyShare)
		if os.Getenv(ForceEnv) == "force" {
			t.Logf("judged on a busy machine (%s=force): %s", ForceEnv, why)
			return
		}
		t.Skipf("not judged: %s", why)
	}
}

// Spin starts n busy loops of the test's own, each a process
// (sh -c 'while :; do :; done'): neighbours that take a CPU each. stop
// ends them (safe to call more than once, from any goroutine); the test's
// cleanup calls it too.
func Spin(t testing.TB, n int) (stop func()) {
	t.Helper()
	var cmds []*exec.Cmd
	for range n {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			for _, c := range cmds {
				c.Process.Kill()
				c.Wait()
			}
		})
	}
	t.Cleanup(stop)
	return stop
}
