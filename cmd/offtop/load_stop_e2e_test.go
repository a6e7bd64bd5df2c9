package main

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestAttachLoadSeesStoppedService: the example stopped (SIGSTOP) for
// 2 s under a 50/s --load reads a client p99 of at least 1 s over that
// stretch: the requests due while it was stopped count from when they
// were due. A busy machine only makes the figure larger.
func TestAttachLoadSeesStoppedService(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	addr, _ := startService(t, "127.0.0.1:0", "--load", "0")
	pid := agentPID(t, addr)
	cmd := exec.Command(buildBinary(t), "attach", addr, "--headless", "--duration", "9s", "--load", "/ping=50/s")
	stopAt, contAt := 3*time.Second, 5*time.Second
	stopped := false
	go func() {
		time.Sleep(stopAt)
		syscall.Kill(pid, syscall.SIGSTOP)
		time.Sleep(contAt - stopAt)
		syscall.Kill(pid, syscall.SIGCONT)
	}()
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	var before, after time.Duration // the highest client p99 read before the stop, and after it
	headlessLines(t, cmd, func(line string, at time.Duration, m map[string]any) {
		lc, _ := m["load_client"].(map[string]any)
		if lc == nil {
			t.Fatalf("a line without load_client: %s", line)
		}
		lat, _ := lc["targets"].([]any)[0].(map[string]any)["latency"].(map[string]any)
		ms, ok := lat["p99_ms"].(float64) // null before the first answer
		if !ok {
			return
		}
		p99 := time.Duration(ms * float64(time.Millisecond))
		switch {
		case at < stopAt:
			before = max(before, p99)
		case at > contAt:
			stopped = true
			after = max(after, p99)
		}
	})
	t.Logf("client p99 before the stop %v, after %v", before, after)
	if !stopped || after < time.Second {
		t.Fatalf("after a 2 s stop under 50/s the client's p99 reads at most %v (lines after it: %v), want 1 s or more", after, stopped)
	}
}

// agentPID is the pid the agent at addr says it runs in.
func agentPID(t *testing.T, addr string) int {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/debug/offtop/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var info struct{ PID int }
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil || info.PID <= 0 {
		t.Fatalf("agent info: pid %d, %v", info.PID, err)
	}
	return info.PID
}
