//go:build prometheus

// The prometheus tier: a real Prometheus server (the Debian package)
// scrapes three of the service's processes, each with its own agent, for
// a minute and its PromQL reads agree with each agent's own figures. Run
// it with
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
	"github.com/offtop/offtop/internal/testkit"
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

// shapes are the tier's services: each its own process with its own
// agent on 127.0.0.1:0, a pool of workers and load closed-loop /fib
// clients.
var shapes = []struct{ workers, load int }{{3, 2}, {2, 1}, {1, 1}}

// service is one of the tier's services and the stream lines it sent.
type service struct {
	name, addr string
	mu         sync.Mutex
	lines      []line
}

// TestPrometheusAgrees: one Prometheus scrapes three services (shapes)
// every second for a minute, and a second one with native histograms
// scrapes them too. For each service: `promtool check metrics` accepts its
// exposition; the Loop p99 that histogram_quantile reads from the classic
// buckets is within one bucket's width of the agent's own p99 over the
// same span (since the start, at the last scrape), and from the native
// buckets within one native bucket's width; rate() of each worker's busy
// seconds over the last 30 s is within 0.05 of the mean of the stream's
// busy shares over those 30 s.
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
	var svcs []*service
	var addrs []string
	for _, sh := range shapes {
		addr := startService(t, bin, sh.workers, sh.load)
		svcs = append(svcs, &service{name: fmt.Sprintf("workers=%d,load=%d", sh.workers, sh.load), addr: addr})
		addrs = append(addrs, addr)
	}
	prom := startPrometheus(t, promBin, filepath.Join(dir, "classic"), addrs)
	native := startPrometheus(t, promBin, filepath.Join(dir, "native"), addrs, "--enable-feature=native-histograms")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	streamDone := make(chan error, len(svcs))
	for _, s := range svcs {
		go func() { streamDone <- readStream(ctx, "http://"+s.addr+agent.DefaultPath+"stream", &s.mu, &s.lines) }()
	}
	start := time.Now()
	select {
	case <-time.After(scrapeFor):
	case err := <-streamDone:
		t.Fatalf("a stream ended early: %v", err)
	}
	end := time.Now() // the servers scrape on; the streams stop
	cancel()
	t.Logf("%d services scraped for %s", len(svcs), end.Sub(start).Round(time.Second))
	for _, s := range svcs {
		t.Run(s.name, func(t *testing.T) { s.agrees(t, prom, native, end) })
	}
}

// agrees checks s's exposition with promtool and the servers' reads of s
// (prom's classic buckets, native's native ones) against its stream,
// which ended at end.
func (s *service) agrees(t *testing.T, prom, native string, end time.Time) {
	t.Logf("service at %s", s.addr)
	if promtool, err := exec.LookPath("promtool"); err == nil {
		resp, err := http.Get("http://" + s.addr + agent.MetricsPath)
		if err != nil {
			t.Fatal(err)
		}
		text, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = strings.NewReader(string(text))
		if out, err := cmd.CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) > 0 {
			t.Errorf("promtool check metrics: %v\n%s", err, out)
		}
	}
	inst := fmt.Sprintf(`instance=%q`, s.addr)

	// The last scrape a stream line follows (lines come every 250 ms), and
	// the count of scrapes.
	ts, _ := queryAt(t, prom, "timestamp(offtop_loop_lateness_seconds_count{"+inst+"})", end.Add(-time.Second))
	at := time.Unix(0, int64(ts*1e9))
	up, _ := queryAt(t, prom, fmt.Sprintf("count_over_time(up{%s}[%ds])", inst, int(scrapeFor/time.Second)), end)
	t.Logf("%.0f scrapes; last at %s", up, at.Format(time.TimeOnly))
	if up < float64(scrapeFor/scrapeInterval)/2 {
		t.Fatalf("only %.0f scrapes in %s", up, scrapeFor)
	}
	s.mu.Lock()
	defer s.mu.Unlock()

	// Loop p99 since the start, at each server's last scrape: Prometheus's
	// from the buckets, the agent's from the stream lines either side of
	// the scrape by their probe counts (when the test read a line is no
	// measure of when the agent wrote it), Prometheus asked at the agent's
	// rank (hdrRank).
	before, after, promP99 := s.p99At(t, prom, "offtop_loop_lateness_seconds_count{"+inst+"}",
		"offtop_loop_lateness_seconds_bucket{"+inst+"}", at)
	ok := false
	for _, l := range []*line{before, after} {
		lo, hi := bucketAround(l.ProbeTotal.P99 / 1000)
		width := (hi - lo) * 1000
		t.Logf("Loop p99 since start: prometheus %.3f ms, agent %.3f ms (count %d), bucket %.3g..%.3g ms", promP99, l.ProbeTotal.P99, l.ProbeTotal.Count, lo*1000, hi*1000)
		if math.Abs(promP99-l.ProbeTotal.P99) <= width {
			ok = true
		}
	}
	if !ok {
		t.Errorf("Loop p99: prometheus %.3f ms, agent %.3f / %.3f ms: more than one bucket apart", promP99, before.ProbeTotal.P99, after.ProbeTotal.P99)
	}
	// The native buckets, through the server that reads them: the agent's
	// p99 is in the native bucket the quantile falls in, so within one
	// native bucket's width (2^(1/32) - 1 of it at NativeSchema 5).
	natSeries := "offtop_loop_lateness_seconds{" + inst + "}"
	natTS, _ := queryAt(t, native, "timestamp("+natSeries+")", end.Add(-time.Second))
	natBefore, natAfter, nat := s.p99At(t, native, "histogram_count("+natSeries+")", natSeries, time.Unix(0, int64(natTS*1e9)))
	natOK := false
	for _, l := range []*line{natBefore, natAfter} {
		width := l.ProbeTotal.P99 * (math.Exp2(1.0/(1<<agent.NativeSchema)) - 1)
		t.Logf("Loop p99 since start, native: prometheus %.3f ms, agent %.3f ms (count %d), native bucket width %.3f ms", nat, l.ProbeTotal.P99, l.ProbeTotal.Count, width)
		if math.Abs(nat-l.ProbeTotal.P99) <= width {
			natOK = true
		}
	}
	if !natOK {
		t.Errorf("Loop p99 from native buckets %.3f ms, agent %.3f / %.3f ms: more than one native bucket apart", nat, natBefore.ProbeTotal.P99, natAfter.ProbeTotal.P99)
	}

	// Busy share per worker over the rateRange before the last scrape.
	from := at.Add(-rateRange)
	sum := map[int]float64{}
	n := map[int]int{}
	for _, l := range s.lines {
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
		got, _ := queryAt(t, prom, fmt.Sprintf(`rate(offtop_pool_worker_busy_seconds_total{%s,worker="%d"}[%ds])`, inst, slot, int(rateRange/time.Second)), at)
		want := sum[slot] / float64(k)
		t.Logf("worker %d busy over %s: prometheus rate %.3f, stream mean %.3f of %d lines", slot, rateRange, got, want, k)
		if math.Abs(got-want) > 0.05 {
			t.Errorf("worker %d: rate() %.3f, the dashboard's busy share %.3f: more than 0.05 apart", slot, got, want)
		}
	}
}

// p99At is the Loop p99 in ms that the server at base reads from buckets
// at the scrape at at, asked at the agent's rank for the count it read
// from count then, and the stream lines either side of that scrape: the
// last with a probe count at most its count and the first with one at
// least it. Callers hold s.mu.
func (s *service) p99At(t *testing.T, base, count, buckets string, at time.Time) (before, after *line, p99 float64) {
	t.Helper()
	n, _ := queryAt(t, base, count, at)
	for i := range s.lines {
		if c := float64(s.lines[i].ProbeTotal.Count); c <= n {
			before = &s.lines[i]
		} else if after == nil {
			after = &s.lines[i]
		}
		if c := float64(s.lines[i].ProbeTotal.Count); c == n && after == nil {
			after = &s.lines[i]
		}
	}
	if before == nil || after == nil || n < 1 {
		t.Fatalf("no stream lines either side of the scrape at %s, count %.0f (%d lines)", at.Format(time.TimeOnly), n, len(s.lines))
	}
	q := (float64(hdrRank(int64(n))) - 0.5) / n
	v, _ := queryAt(t, base, fmt.Sprintf("histogram_quantile(%.17g, %s)", q, buckets), at)
	return before, after, v * 1000
}

// hdrRank is the rank of the 99th percentile of n values as the agent
// takes it (hdr's: 0.99n rounded to the nearest, 1..n). histogram_quantile
// takes the value where the count reaches 0.99n unrounded, one rank
// higher when 0.99n rounds down: where the tail is sparse, as on a busy
// machine, the next value can be native buckets away. Asked for
// (rank - 0.5)/n, it reaches the agent's rank.
func hdrRank(n int64) int64 {
	return min(max(int64(0.99*float64(n)+0.5), 1), n)
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

// startService runs the service binary on a free loopback port with a
// pool of workers and load /fib clients, and returns its address once it
// serves; it is stopped (SIGINT) at cleanup.
func startService(t *testing.T, bin string, workers, load int) string {
	t.Helper()
	cmd := exec.Command(bin, "--listen", "127.0.0.1:0", "--workers", strconv.Itoa(workers), "--load", strconv.Itoa(load))
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
// its data in dir, scraping the agents' metrics at addrs every
// scrapeInterval, and returns its base URL once ready.
func startPrometheus(t *testing.T, bin, dir string, addrs []string, flags ...string) string {
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
`, scrapeInterval, agent.MetricsPath, strings.Join(addrs, "', '"))
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
	testkit.WaitFor(t, "prometheus ready at "+base, 60*time.Second, func() bool {
		resp, err := http.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return base
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
