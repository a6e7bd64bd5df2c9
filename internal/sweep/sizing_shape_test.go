//go:build shape

package sweep

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/shape"
)

// TestCountSizedAtTheCores, on 2 CPUs: `offtop
// sweep --scenario count --workers 1,2,3,4 --repeat 3 --fit` fits a peak
// between 1.5 and 3.5 workers and recommends 2.
//
// The shape needs the 2 cores the machine names. It is not judged when
// the 2-worker row kept 2 cores busy (CPU/wall at least 1.8) and still ran
// under 1.6 times the 1-worker row's throughput: the threads ran, the
// host gave them less (this VM's host can give its 2 vCPUs the work of
// one with no steal in /proc/stat and no run delay inside: two threads
// side by side read 0.9-2.5 times one thread's work over 500 ms, quiet,
// here; a CI machine's sweep read a speed-up of 1.3). A pool that keeps
// fewer than 2 cores busy is judged, and fails.
func TestCountSizedAtTheCores(t *testing.T) {
	if runtime.NumCPU() != 2 {
		t.Skipf("the shape is for 2 CPUs, not %d", runtime.NumCPU())
	}
	shape.Judge(t)
	slow := shape.Watch(t)
	res, err := Run(context.Background(), Config{Base: session.Config{Scenario: "count", Scale: 1},
		Workers: []int{1, 2, 3, 4}, Duration: 5 * time.Second, Repeat: 3, Fit: true}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	slow()
	for _, r := range res.Rows {
		if r.Workers != 2 {
			continue
		}
		if r.Speedup == nil || r.CPUPerWall == nil {
			t.Fatalf("2 workers: speed-up %v, CPU/wall %v: want both", r.Speedup, r.CPUPerWall)
		}
		if sp, cw := *r.Speedup, *r.CPUPerWall; sp < 1.6 && cw >= 1.8 {
			why := fmt.Sprintf("count kept %.2f cores busy at 2 workers but ran %.3f times as fast as on 1, under 1.6: each core did less beside the other, the host's doing, not the pool's", cw, sp)
			if os.Getenv(shape.ForceEnv) != "force" {
				t.Skipf("not judged: %s", why)
			}
			t.Logf("judged on a busy machine (%s=force): %s", shape.ForceEnv, why)
		}
	}
	f := res.Fit
	if f == nil || f.NPeak == nil || *f.NPeak < 1.5 || *f.NPeak > 3.5 || f.Recommended != 2 {
		var b strings.Builder
		_ = res.Write(&b)
		t.Errorf("fit %+v\n%s", f, b.String())
	}
}

// TestIOSizedByLittlesLaw: `offtop sweep
// --scenario io --workers 1,2,4,8,16 --fit` (at io's sweep load, 160
// calls/s of 50 ms) recommends 8 or more by Little's law and says so.
func TestIOSizedByLittlesLaw(t *testing.T) {
	shape.Judge(t)
	res, err := Run(context.Background(), Config{Base: session.Config{Scenario: "io", Scale: 1},
		Workers: []int{1, 2, 4, 8, 16}, Duration: 3 * time.Second, Repeat: 1, Load: 2, Fit: true}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	f := res.Fit
	if f == nil || f.Rule != "little" || f.Recommended < 8 || !strings.Contains(f.Line, "Little's law") ||
		f.ArrivalPerS == nil || *f.ArrivalPerS < 150 || *f.ArrivalPerS > 170 {
		t.Errorf("fit %+v", f)
	}
}
