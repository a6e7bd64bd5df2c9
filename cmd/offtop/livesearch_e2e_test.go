package main

import (
	"bufio"
	"encoding/json"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/testkit"
	"github.com/offtop/offtop/pool"
)

// TestLiveSearchUnderLoad: a (--keys) on a program attached under
// --load runs sweep --attach's search with the load on: the stream's
// search shows it running, then done with a pick by the target's p99,
// and the program's pool is left at the pick. The rows of every size it
// measured stay in the stream's sizes, though each hold resets the
// agent's.
func TestLiveSearchUnderLoad(t *testing.T) {
	p, err := pool.New(pool.Options{Size: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a, err := agent.New(agent.Options{Name: "worker", Pool: p, Control: true, Window: time.Second,
		Interval: 100 * time.Millisecond, TokenDir: t.TempDir(), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	mux := http.NewServeMux()
	a.Mount(mux)
	mux.HandleFunc("/work", func(w http.ResponseWriter, r *http.Request) {
		p.Do(func() { // 1 ms of CPU
			for end := time.Now().Add(time.Millisecond); time.Now().Before(end); {
			}
		})
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: a.Middleware(mux)}
	go srv.Serve(ln)
	defer srv.Close()
	tok, err := os.ReadFile(a.TokenFile())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(buildBinary(t), "attach", ln.Addr().String(), "--token", strings.TrimSpace(string(tok)),
		"--headless", "--load", "/work=30/s", "--keys", "0.5s:a", "--duration", "40s", "--no-summary")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 4<<20)
	ran, spreadWhileRunning := false, false
	var done *session.Search
	var rows []int // the finished line's sizes
	for sc.Scan() && done == nil {
		var line struct {
			Search *session.Search
			Sizes  []struct{ Workers int }
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		rows = rows[:0]
		for _, r := range line.Sizes {
			rows = append(rows, r.Workers)
		}
		q := line.Search
		switch {
		case q == nil:
		case q.Running:
			ran = true
			// A pass's figures show while the search runs.
			for _, sp := range q.Spread {
				if len(sp) > 0 && !math.IsNaN(sp[0]) {
					spreadWhileRunning = true
				}
			}
		case ran && q.Fit != nil:
			done = q
		case ran:
			t.Fatalf("the search ended with no fit: %+v (stderr %s)", q, stderr.String())
		}
	}
	if done == nil {
		t.Fatalf("no finished search in the stream (ran %v; stderr %s)", ran, stderr.String())
	}
	if done.Fit.Rule != "latency" || done.MaxPasses != session.SearchMinPasses || len(done.Sizes) < 4 {
		t.Errorf("search %+v: want the latency rule over %d passes of at least 4 sizes", done, session.SearchMinPasses)
	}
	if !spreadWhileRunning {
		t.Error("no pass p99 in the search's spread while it ran: the panel's pass column would read n/a until the end")
	}
	if done.Headline != "/work client" {
		t.Errorf("search ranked by %q, want the load target's client p99 (/work client)", done.Headline)
	}
	for _, n := range done.Sizes {
		if !slices.Contains(rows, n) {
			t.Errorf("the search measured %v workers, the sizes after it have rows %v only", done.Sizes, rows)
			break
		}
	}
	want := done.Fit.Recommended
	if done.Uncertain != "" || want < 0 {
		want = 3 // no pick: the size before
	}
	testkit.WaitFor(t, "the pool at the search's pick", 5*time.Second, func() bool { return p.Size() == want })
}
