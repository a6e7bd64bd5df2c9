//go:build shape

package sweep

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/shape"
	"github.com/offtop/offtop/pool"
)

// TestServerPriorityPingAtTheCores: `offtop sweep
// --scenario server --workers 1,CORES --priority --repeat 3`: with
// priority workers at workers = cores, /ping p99 at most 2x the plain
// 1-worker row's. A first sweep that misses is logged and swept once
// more, the second judged: both rows are sub-ms medians of three 5 s
// holds (on the 2-core VM 1 worker 0.74-1.24 ms, priority 0.57-0.74 in
// most runs, 1.9 in one .ci/run), while a pool that does not lower its
// workers reads 20-70 ms, which a second sweep cannot hide.
func TestServerPriorityPingAtTheCores(t *testing.T) {
	if !pool.PriorityAvailable() {
		t.Skip("no priority workers on " + runtime.GOOS)
	}
	shape.Judge(t)
	slow := shape.Watch(t)
	problem := sweepPriority(t)
	if problem != "" {
		t.Logf("first sweep missed (%s): sweeping once more", problem)
		problem = sweepPriority(t)
	}
	slow()
	if problem != "" {
		t.Error(problem)
	}
}

// sweepPriority runs TestServerPriorityPingAtTheCores' sweep, logs its
// table, and returns what misses the limit ("" if nothing).
func sweepPriority(t *testing.T) (problem string) {
	t.Helper()
	cores := runtime.NumCPU()
	res, err := Run(context.Background(), Config{Base: session.Config{Scenario: "server", Scale: 1},
		Workers: []int{1, cores}, Duration: 5 * time.Second, Repeat: 3, Priority: true}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var one, prio *float64
	for _, r := range res.Rows {
		switch {
		case r.Workers == 1 && !r.Priority:
			one = r.Size.HeadlineP99MS
		case r.Workers == cores && r.Priority:
			prio = r.Size.HeadlineP99MS
		}
	}
	var b strings.Builder
	_ = res.Write(&b)
	t.Logf("the sweep:\n%s", b.String())
	if one == nil || prio == nil {
		t.Fatalf("no /ping p99 at 1 worker or at %d priority workers", cores)
	}
	t.Logf("/ping p99: 1 worker %.3g ms, %d priority workers %.3g ms", *one, cores, *prio)
	if *prio > 2**one {
		return fmt.Sprintf("/ping p99 at %d priority workers %.3g ms, over 2x the 1-worker row's %.3g ms", cores, *prio, *one)
	}
	return ""
}
