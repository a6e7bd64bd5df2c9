//go:build shape

package sweep

import (
	"context"
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
// 1-worker row's.
func TestServerPriorityPingAtTheCores(t *testing.T) {
	if !pool.PriorityAvailable() {
		t.Skip("no priority workers on " + runtime.GOOS)
	}
	shape.Judge(t)
	slow := shape.Watch(t)
	cores := runtime.NumCPU()
	res, err := Run(context.Background(), Config{Base: session.Config{Scenario: "server", Scale: 1},
		Workers: []int{1, cores}, Duration: 5 * time.Second, Repeat: 3, Priority: true}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	slow()
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
	if one == nil || prio == nil {
		t.Fatalf("no /ping p99 at 1 worker or at %d priority workers:\n%s", cores, b.String())
	}
	if *prio > 2**one {
		t.Errorf("/ping p99 at %d priority workers %.3g ms, over 2x the 1-worker row's %.3g ms:\n%s", cores, *prio, *one, b.String())
	} else {
		t.Logf("/ping p99: 1 worker %.3g ms, %d priority workers %.3g ms", *one, cores, *prio)
	}
}
