package main

import (
	"bufio"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// startNodeService runs testdata/noderoutes.js, a node:http service with
// no offtop code, under the agent's preload, and returns the address it
// serves on (the agent answers there too); it is killed after t.
func startNodeService(t *testing.T) string {
	t.Helper()
	needNode(t)
	cmd := exec.Command("node", "--require", "../../node/preload.js", "testdata/noderoutes.js")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				found <- addr
			}
		}
	}()
	select {
	case addr := <-found:
		return addr
	case <-time.After(10 * time.Second):
		t.Fatalf("the Node service did not say where it serves within 10s; stderr:\n%s", stderr.String())
	}
	return ""
}

// attachLoadLast runs `offtop attach addr --headless --duration d --load
// spec` and returns its last line with endpoints; every line must carry
// load_client.
func attachLoadLast(t *testing.T, addr, d, spec string) map[string]any {
	t.Helper()
	cmd := exec.Command(buildBinary(t), "attach", addr, "--headless", "--duration", d, "--load", spec)
	var last map[string]any
	headlessLines(t, cmd, func(line string, at time.Duration, m map[string]any) {
		if m["load_client"] == nil {
			t.Fatalf("a line without load_client: %s", line)
		}
		if m["endpoints"] != nil {
			last = m
		}
	})
	if last == nil {
		t.Fatal("no line has endpoints")
	}
	return last
}

// nodeEndpoints reads the endpoints and load_client targets of line m by
// route and by target.
func nodeEndpoints(t *testing.T, m map[string]any) (eps, targets map[string]map[string]any) {
	t.Helper()
	eps, targets = map[string]map[string]any{}, map[string]map[string]any{}
	list, _ := m["endpoints"].([]any)
	for _, e := range list {
		e := e.(map[string]any)
		eps[e["route"].(string)] = e
	}
	if lc, ok := m["load_client"].(map[string]any); ok {
		for _, tg := range lc["targets"].([]any) {
			tg := tg.(map[string]any)
			targets[tg["target"].(string)] = tg
		}
	}
	return eps, targets
}

// TestNodeAttachLoad: `offtop attach ADDR --load SPEC` on a Node service
// run with the preload, unchanged: the load's targets find the Node
// agent's routes, each route's count is the sum of its status classes and
// the client's sent (and the load's check) less at most the requests of
// one interval and those in flight, and the 20 ms handler's p50 reads above the immediate
// one's.
func TestNodeAttachLoad(t *testing.T) {
	last := attachLoadLast(t, startNodeService(t), "4s", "/ping?n=1=50/s,/wait=20/s")
	eps, targets := nodeEndpoints(t, last)
	interval := last["interval_ms"].(float64) / 1000
	for target, route := range map[string]string{"/ping?n=1": "/ping", "/wait": "/wait"} {
		tg, ep := targets[target], eps[route]
		if tg == nil || ep == nil {
			t.Fatalf("%s: target %v, route %s %v", target, tg, route, ep)
		}
		if tg["route"] != route {
			t.Errorf("%s: load_client route %q, want %q", target, tg["route"], route)
		}
		st := ep["status"].(map[string]any)
		count, sum := ep["count"].(float64), 0.0
		for _, v := range st {
			sum += v.(float64)
		}
		sent, rate := tg["sent"].(float64), tg["asked_per_s"].(float64)
		if count != sum || count != st["2xx"].(float64) {
			t.Errorf("%s: count %v, status %v: want every response a 2xx, adding up to count", route, count, st)
		}
		// The route also counts the one request of the load's check
		// before it began. The client's figures are read after the
		// agent's line: its sent is ahead by what went out since, and by
		// what is in flight.
		if count > sent+1 || count < sent+1-rate*interval-tg["in_flight"].(float64)-2 || count < 20 {
			t.Errorf("%s: count %v, client sent %v (%v in flight, %v/s)", route, count, sent, tg["in_flight"], rate)
		}
	}
	if _, ok := eps["unmatched"]; ok {
		t.Errorf("routes %v: the load asked for no path the service lacks", eps)
	}
	wait, ping := eps["/wait"]["latency"].(map[string]any), eps["/ping"]["latency"].(map[string]any)
	if !(wait["p50_ms"].(float64) > ping["p50_ms"].(float64)) {
		t.Errorf("p50 /wait %v ms, /ping %v ms: want the waiting handler's above", wait["p50_ms"], ping["p50_ms"])
	}
}
