//go:build prometheus

// The prometheus tier: a real Prometheus server (the Debian package)
// scrapes the service's agent for a minute and its PromQL reads agree with
// the agent's own figures. Run it with
//
//	go test -tags prometheus -count=1 -v ./examples/service
//
// Without a prometheus binary on PATH it says "not judged" and skips.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/offtop/offtop/agent"
)

// Run shape: how long Prometheus scrapes, how often, and the range of the
// rate() compared with the stream's busy shares.
const (
	scrapeFor      = time.Minute
	scrapeInterval = time.Second
	rateRange      = 30 * time.Second
)

// line is what the test reads of one stream line, and when it came.
type line struct {
	at         time.Time
	ProbeTotal struct {
		P99   float64 `json:"p99_ms"`
		Count int64   `json:"count"`
	} `json:"probe_total"`
	Slots []int     `json:"worker_slots"`
	Busy  []float64 `json:"worker_busy"`
}

// TestPrometheusAgrees: after a minute of 1 s scrapes of examples/service
// (3 workers, 2 closed-loop /fib clients), the Loop p99 that
// histogram_quantile reads from the classic buckets is within one bucket's
// width of the agent's own p99 over the same span (since the start, at the
// last scrape), and rate() of each worker's busy seconds over the last 30
// s is within 0.05 of the mean of the stream's busy shares over those 30 s.
func TestPrometheusAgrees(t *testing.T) {
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("not judged: no prometheus server installed (Debian package prometheus)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "service")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	addr := startService(t, bin)
	prom := startPrometheus(t, promBin, filepath.Join(dir, "classic"), addr)
	native := startPrometheus(t, promBin, filepath.Join(dir, "native"), addr, "--enable-feature=native-histograms")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var lines []line
	streamDone := make(chan error, 1)
	go func() { streamDone <- readStream(ctx, "http://"+addr+agent.DefaultPath+"stream", &mu, &lines) }()

	start := time.Now()
	select {
	case <-time.After(scrapeFor):
	case err := <-streamDone:
		t.Fatalf("stream ended early: %v", err)
	}
	cancel()

	// The last scrape: its time and its count.
	ts, _ := query(t, prom, "timestamp(offtop_loop_lateness_seconds_count)")
	at := time.Unix(0, int64(ts*1e9))
	up, _ := query(t, prom, fmt.Sprintf("count_over_time(up[%ds])", int(scrapeFor/time.Second)))
	t.Logf("%.0f scrapes in %s; last at %s", up, time.Since(start).Round(time.Second), at.Format(time.TimeOnly))
	if up < float64(scrapeFor/scrapeInterval)/2 {
		t.Fatalf("only %.0f scrapes in %s", up, scrapeFor)
	}
	mu.Lock()
	defer mu.Unlock()

	// Loop p99 since the start, at the last scrape: Prometheus's from the
	// buckets, the agent's from the stream lines either side of it.
	p99s, _ := queryAt(t, prom, "histogram_quantile(0.99, offtop_loop_lateness_seconds_bucket)", at)
	var before, after *line
	for i := range lines {
		if !lines[i].at.After(at) {
			before = &lines[i]
		} else if after == nil {
			after = &lines[i]
		}
	}
	if before == nil || after == nil {
		t.Fatalf("no stream lines around the last scrape (%d lines)", len(lines))
	}
	promP99 := p99s * 1000
	ok := false
	for _, l := range []*line{before, after} {
		lo, hi := bucketAround(l.ProbeTotal.P99 / 1000)
		width := (hi - lo) * 1000
		t.Logf("Loop p99 since start: prometheus %.3f ms, agent %.3f ms (count %d), bucket %.3g..%.3g ms", promP99, l.ProbeTotal.P99, l.ProbeTotal.Count, lo*1000, hi*1000)
		if math.Abs(promP99-l.ProbeTotal.P99) <= width {
			ok = true
		}
	}
	// The native buckets, through the server that reads them: the agent's
	// p99 is in the native bucket the quantile falls in, so within one
	// native bucket's width (2^(1/32) - 1 of it at NativeSchema 5).
	nat, _ := queryAt(t, native, "histogram_quantile(0.99, offtop_loop_lateness_seconds)", at)
	natOK := false
	for _, l := range []*line{before, after} {
		width := l.ProbeTotal.P99 * (math.Exp2(1.0/(1<<agent.NativeSchema)) - 1)
		t.Logf("Loop p99 since start, native: prometheus %.3f ms, agent %.3f ms, native bucket width %.3f ms", nat*1000, l.ProbeTotal.P99, width)
		if math.Abs(nat*1000-l.ProbeTotal.P99) <= width {
			natOK = true
		}
	}
	if !natOK {
		t.Errorf("Loop p99 from native buckets %.3f ms, agent %.3f / %.3f ms: more than one native bucket apart", nat*1000, before.ProbeTotal.P99, after.ProbeTotal.P99)
	}
	if !ok {
		t.Errorf("Loop p99: prometheus %.3f ms, agent %.3f / %.3f ms: more than one bucket apart", promP99, before.ProbeTotal.P99, after.ProbeTotal.P99)
	}

	// Busy share per worker over the rateRange before the last scrape.
	from := at.Add(-rateRange)
	sum := map[int]float64{}
	n := map[int]int{}
	for _, l := range lines {
		if l.at.After(from) && !l.at.After(at) {
			for i, slot := range l.Slots {
				if i < len(l.Busy) {
					sum[slot] += l.Busy[i]
					n[slot]++
				}
			}
		}
	}
	if len(n) == 0 {
		t.Fatal("no stream line with workers in the rate's range")
	}
	for slot, k := range n {
		got, _ := queryAt(t, prom, fmt.Sprintf(`rate(offtop_pool_worker_busy_seconds_total{worker="%d"}[%ds])`, slot, int(rateRange/time.Second)), at)
		want := sum[slot] / float64(k)
		t.Logf("worker %d busy over %s: prometheus rate %.3f, stream mean %.3f of %d lines", slot, rateRange, got, want, k)
		if math.Abs(got-want) > 0.05 {
			t.Errorf("worker %d: rate() %.3f, the dashboard's busy share %.3f: more than 0.05 apart", slot, got, want)
		}
	}
}

// bucketAround is the classic bucket (agent.LatencyBuckets) holding v
// seconds: its lower and upper bound.
func bucketAround(v float64) (lo, hi float64) {
	for _, b := range agent.LatencyBuckets {
		if v <= b.Seconds() {
			return lo, b.Seconds()
		}
		lo = b.Seconds()
	}
	return lo, math.Inf(1)
}

// startService runs the service binary on a free loopback port and
// returns its address once it serves; it is stopped (SIGINT) at cleanup.
func startService(t *testing.T, bin string) string {
	t.Helper()
	cmd := exec.Command(bin, "--listen", "127.0.0.1:0", "--workers", "3", "--load", "2")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		_ = cmd.Wait()
	})
	re := regexp.MustCompile(`offtop agent at http://([0-9.:]+)/`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case a := <-found:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("the service never said where it serves")
	}
	return ""
}

// startPrometheus runs a Prometheus server on a free loopback port with
// its data in dir, scraping the agent's metrics at addr every
// scrapeInterval, and returns its base URL once ready.
func startPrometheus(t *testing.T, bin, dir, addr string, flags ...string) string {
	t.Helper()
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	web := ln.Addr().String()
	ln.Close()
	conf := filepath.Join(dir, "prometheus.yml")
	cfg := fmt.Sprintf(`global:
  scrape_interval: %[1]s
  evaluation_interval: %[1]s
scrape_configs:
  - job_name: offtop-service
    metrics_path: %[2]s
    static_configs:
      - targets: ['%[3]s']
`, scrapeInterval, agent.MetricsPath, addr)
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--config.file=" + conf, "--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--web.listen-address=" + web}, flags...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("prometheus log:\n%s", b)
		}
	})
	base := "http://" + web
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready at %s: %v", base, err)
		}
		time.Sleep(200 * time.Millisecond) // polling a process that has no event to wait on
	}
}

// readStream appends every stream line to *lines, stamped when it came,
// until ctx ends.
func readStream(ctx context.Context, u string, mu *sync.Mutex, lines *[]line) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return err
		}
		l.at = time.Now()
		mu.Lock()
		*lines = append(*lines, l)
		mu.Unlock()
	}
	return sc.Err()
}

// query evaluates q now; see queryAt.
func query(t *testing.T, base, q string) (float64, time.Time) { return queryAt(t, base, q, time.Now()) }

// queryAt evaluates the instant query q at at and returns its one value.
func queryAt(t *testing.T, base, q string, at time.Time) (float64, time.Time) {
	t.Helper()
	v := url.Values{"query": {q}, "time": {strconv.FormatFloat(float64(at.UnixNano())/1e9, 'f', 3, 64)}}
	resp, err := http.Get(base + "/api/v1/query?" + v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		t.Fatalf("query %q: %v %s", q, err, body)
	}
	if len(r.Data.Result) != 1 {
		t.Fatalf("query %q: %d results, want 1: %s", q, len(r.Data.Result), body)
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		t.Fatalf("query %q: value %q", q, s)
	}
	ts, _ := r.Data.Result[0].Value[0].(float64)
	return f, time.Unix(0, int64(ts*1e9))
}
