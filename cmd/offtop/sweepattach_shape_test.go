//go:build shape

package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/report"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/shape"
	"github.com/offtop/offtop/internal/sweep"
)

// autocannonJS is autocannon's command as node runs it, found through
// NODE_PATH (or node's own paths); "" when it is not installed.
func autocannonJS() string {
	out, err := exec.Command("node", "-e", "process.stdout.write(require.resolve('autocannon/autocannon.js'))").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// The sweep's load and the outside client's: /ping at the same rate
// from both, /fib (on the pool; on the loop at 0 workers) from offtop's.
const (
	pingRate   = 50
	shapeLoad  = "/ping=50/s,/fib?n=32=20/s"
	shapeHold  = 5 * time.Second
	shapeWarm  = time.Second // sweep's default for a 5 s hold: Duration/5
	outsideRes = 1.0         // ms: autocannon's latency resolution
)

// TestSweepAttachAgreesWithAutocannon: examples/service under sweep
// --attach --load at 0, 1, 2, 4 workers, with autocannon sending /ping at
// the same rate beside each size's warm-up and hold: the table's /ping
// p99 (offtop's client, from each request's due time) agrees with
// autocannon's (which corrects for coordinated omission at a set rate)
// within 10% or autocannon's 1 ms resolution, whichever is more, at each
// size; the pick is the table's best row, and autocannon's p99 there is
// within the same margin of its lowest.
func TestSweepAttachAgreesWithAutocannon(t *testing.T) {
	js := autocannonJS()
	if js == "" {
		t.Skip("autocannon not installed (npm install autocannon, then NODE_PATH=.../node_modules)")
	}
	shape.Judge(t)
	bin := buildBinary(t)
	addr, _ := startService(t, "127.0.0.1:0", "--load", "0", "--workers", "2")
	cmd := exec.Command(bin, "sweep", "--attach", addr, "--load", shapeLoad, "--route", "/ping",
		"--workers", "0,1,2,4", "--duration", shapeHold.String(), "--repeat", "1", "--json")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// At each size's progress line, autocannon for its warm-up and hold.
	outside := map[int]float64{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sc := bufio.NewScanner(stderr)
	var progress []string
	for sc.Scan() {
		line := sc.Text()
		progress = append(progress, line)
		n := -1
		for _, w := range []int{0, 1, 2, 4} {
			if strings.Contains(line, " at "+report.SizeName(w)+" under ") {
				n = w
			}
		}
		if n < 0 {
			continue
		}
		wg.Go(func() {
			secs := strconv.FormatFloat((shapeWarm + shapeHold).Seconds(), 'f', -1, 64)
			out, err := exec.Command("node", js, "-j", "-R", strconv.Itoa(pingRate), "-c", strconv.Itoa(pingRate), "-d", secs, "http://"+addr+"/ping").Output()
			if err != nil {
				t.Errorf("autocannon at %d workers: %v", n, err)
				return
			}
			var r struct {
				Latency  struct{ P99 float64 }
				Requests struct{ Total int }
				Errors   int
			}
			if err := json.Unmarshal(out, &r); err != nil {
				t.Errorf("autocannon at %d workers: %v: %s", n, err, out)
				return
			}
			mu.Lock()
			outside[n] = r.Latency.P99
			mu.Unlock()
			t.Logf("autocannon at %s: /ping p99 %.0f ms over %d requests, %d errors", report.SizeName(n), r.Latency.P99, r.Requests.Total, r.Errors)
		})
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("sweep: %v\n%s", err, strings.Join(progress, "\n"))
	}
	wg.Wait()
	var res sweep.Result
	if err := json.Unmarshal([]byte(stdout.String()), &res); err != nil {
		t.Fatal(err)
	}
	var tbl strings.Builder
	res.Write(&tbl)
	t.Logf("the sweep's table:\n%s", tbl.String())
	if res.Machine != nil && res.Machine.Busy && os.Getenv(shape.ForceEnv) != "force" {
		t.Skipf("not judged: the machine is busy (%s)", res.Machine.Line())
	}
	if len(res.Rows) != 4 || res.Fit == nil {
		t.Fatalf("rows %d, fit %v: want 4 rows and a pick", len(res.Rows), res.Fit)
	}
	margin := func(a, b float64) bool { return math.Abs(a-b) <= max(0.10*max(a, b), outsideRes) }
	sizes := make([]session.SizeJSON, len(res.Rows))
	for i, r := range res.Rows {
		sizes[i] = r.Size
		got := r.Size.HeadlineP99MS
		ac, ok := outside[r.Workers]
		switch {
		case got == nil || !ok:
			t.Errorf("%s: offtop %v, autocannon %v: want both", report.SizeName(r.Workers), got, ok)
		case !margin(*got, ac):
			t.Errorf("%s: /ping p99 offtop %.3g ms, autocannon %.0f ms: want within 10%% or %g ms", report.SizeName(r.Workers), *got, ac, outsideRes)
		}
	}
	best := report.Of(res.Scenario, sizes).Best
	if best < 0 || res.Fit.Recommended != res.Rows[best].Workers {
		t.Errorf("pick %d, the table's best row %d: want the same", res.Fit.Recommended, best)
	}
	low := math.Inf(1)
	for _, v := range outside {
		low = min(low, v)
	}
	if v, ok := outside[res.Fit.Recommended]; !ok || !margin(v, low) {
		t.Errorf("autocannon at the pick (%d workers): %v ms, its lowest %v ms: want within the margin", res.Fit.Recommended, v, low)
	}
}
