// Command exportcost measures what the agent's Prometheus export costs the
// program: three copies of examples/service side by side, at the same
// time, ROUNDS times (the order they start in turns each round): without
// the agent (--no-agent), with the agent and no scrape, and with the agent
// scraped every -every as Prometheus scrapes (its Accept header, gzip).
// Per copy: CPU % of one core (utime + stime, /proc/PID/stat fields 14 and
// 15, over -window from -warmup after start) and VmRSS at the end; then the
// medians, the scrapes' sizes and the load average before and after.
//
//	(cd bench && go run ./exportcost -rounds 3 -window 60s)
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// accept is what Prometheus 2.x sends without native histograms.
const accept = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

const metricsPath = "/debug/offtop/metrics" // agent.MetricsPath

var modes = []string{"none", "agent", "scraped"}

func main() {
	rounds := flag.Int("rounds", 3, "rounds, all three copies side by side in each")
	window := flag.Duration("window", 60*time.Second, "CPU measured over this span")
	warmup := flag.Duration("warmup", 2*time.Second, "from start to the window")
	every := flag.Duration("every", 15*time.Second, "the scraped copy's scrape interval (the first at the window's start)")
	workers := flag.Int("workers", 3, "each copy's pool size")
	load := flag.Int("load", 0, "each copy's closed-loop /fib clients (0: idle)")
	flag.Parse()
	if err := run(*rounds, *window, *warmup, *every, *workers, *load); err != nil {
		fmt.Fprintln(os.Stderr, "exportcost:", err)
		os.Exit(2)
	}
}

// reading is one copy's figures in one round.
type reading struct {
	cpuPct  float64
	rssKiB  int64
	scrapes int
	bytes   int64 // of the last scrape, as sent (gzip)
	plain   int64 // of the last scrape, uncompressed
}

func run(rounds int, window, warmup, every time.Duration, workers, load int) error {
	tmp, err := os.MkdirTemp("", "exportcost")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "service")
	build := exec.Command("go", "build", "-o", bin, "./examples/service")
	build.Dir = ".." // the core module, beside bench/
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	fmt.Printf("load before: %s", loadavg())
	all := map[string][]reading{}
	for r := range rounds {
		order := slices.Clone(modes)
		for range r % len(order) {
			order = append(order[1:], order[0])
		}
		got, err := round(bin, order, window, warmup, every, workers, load)
		if err != nil {
			return err
		}
		for _, m := range modes {
			g := got[m]
			all[m] = append(all[m], g)
			fmt.Printf("round %d %-8s cpu %5.2f%%  rss %6.1f MiB  scrapes %d  last scrape %d B gzip, %d B plain\n",
				r+1, m, g.cpuPct, float64(g.rssKiB)/1024, g.scrapes, g.bytes, g.plain)
		}
	}
	fmt.Printf("load after: %s", loadavg())
	fmt.Printf("medians of %d rounds (%s window, scrape every %s, %d workers, load %d):\n", rounds, window, every, workers, load)
	for _, m := range modes {
		var cpu, rss []float64
		for _, g := range all[m] {
			cpu, rss = append(cpu, g.cpuPct), append(rss, float64(g.rssKiB)/1024)
		}
		fmt.Printf("  %-8s cpu %5.2f%%  rss %6.1f MiB\n", m, median(cpu), median(rss))
	}
	return nil
}

// round runs the three copies at once, started in order, and measures each.
func round(bin string, order []string, window, warmup, every time.Duration, workers, load int) (map[string]reading, error) {
	type proc struct {
		cmd  *exec.Cmd
		addr string
	}
	procs := map[string]*proc{}
	defer func() {
		for _, p := range procs {
			_ = p.cmd.Process.Signal(os.Interrupt)
			_ = p.cmd.Wait()
		}
	}()
	for _, m := range order {
		args := []string{"--listen", "127.0.0.1:0", "--workers", strconv.Itoa(workers), "--load", strconv.Itoa(load)}
		if m == "none" {
			args = append(args, "--no-agent")
		}
		cmd := exec.Command(bin, args...)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		p := &proc{cmd: cmd}
		procs[m] = p
		addr, err := served(stderr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		p.addr = addr
	}
	time.Sleep(warmup)
	start := map[string]float64{}
	for m, p := range procs {
		start[m] = cpuSeconds(p.cmd.Process.Pid)
	}
	t0 := time.Now()
	out := map[string]reading{}
	var mu sync.Mutex
	var scrapeErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			n, plain, err := scrape("http://" + procs["scraped"].addr + metricsPath)
			mu.Lock()
			r := out["scraped"]
			r.scrapes++
			r.bytes, r.plain = n, plain
			out["scraped"] = r
			if err != nil {
				scrapeErr = err
			}
			mu.Unlock()
			if err != nil || time.Until(t0.Add(window)) < every {
				return
			}
			<-tick.C
		}
	}()
	time.Sleep(window)
	wall := time.Since(t0).Seconds()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if scrapeErr != nil {
		return nil, scrapeErr
	}
	for m, p := range procs {
		r := out[m]
		r.cpuPct = 100 * (cpuSeconds(p.cmd.Process.Pid) - start[m]) / wall
		r.rssKiB = rssKiB(p.cmd.Process.Pid)
		out[m] = r
	}
	return out, nil
}

var addrRE = regexp.MustCompile(`serving http://([0-9.:]+)/`)

// served is the address the service says it serves, from its log; the
// rest of the log is drained.
func served(stderr io.Reader) (string, error) {
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := addrRE.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case a := <-found:
		return a, nil
	case <-time.After(30 * time.Second):
		return "", errors.New("the service never said where it serves")
	}
}

// scrape GETs url as Prometheus does and returns the bytes sent (gzip)
// and the body's size.
func scrape(url string) (sent, plain int64, err error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("Accept-Encoding", "gzip")
	tr := &http.Transport{DisableCompression: true} // count the gzip bytes; a new connection each time, as after an idle 15 s
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	plain = int64(len(b))
	if resp.Header.Get("Content-Encoding") == "gzip" {
		if n, err := gunzippedLen(b); err == nil {
			plain = n
		}
	}
	return int64(len(b)), plain, nil
}

func gunzippedLen(b []byte) (int64, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	return io.Copy(io.Discard, zr)
}

// cpuSeconds is the process's utime + stime.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from 3 on
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / clockTicks
}

// clockTicks is USER_HZ: 100 on Linux.
const clockTicks = 100

// rssKiB is the process's VmRSS.
func rssKiB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return string(b)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
