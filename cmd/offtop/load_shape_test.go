//go:build shape

package main

import (
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/internal/shape"
	"github.com/offtop/offtop/internal/testkit"
)

// loadRowRE is the load panel's row of /sleep: asked, sent/s, client p99,
// handler p99 (ms).
var loadRowRE = regexp.MustCompile(`(?m)^/sleep +60/s +[0-9.]+ +([0-9.]+) +([0-9.]+) `)

// TestAttachLoadQueueOutsideHandler: a service whose handler sleeps
// 20 ms behind a 1-worker semaphore (50/s at most) under --load 60/s:
// on the screen the client's p99 grows with the queue while the
// middleware's, the handler's own time, stays near 20 ms.
func TestAttachLoadQueueOutsideHandler(t *testing.T) {
	shape.Judge(t)
	a, err := agent.New(agent.Options{Name: "sleeper", Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/sleep", func(w http.ResponseWriter, r *http.Request) { time.Sleep(20 * time.Millisecond) })
	a.Mount(mux)
	inner := a.Middleware(mux)
	sem := make(chan struct{}, 1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, agent.DefaultPath) { // the queue: outside the middleware
			sem <- struct{}{}
			defer func() { <-sem }()
		}
		inner.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	defer srv.Close()

	tm := testkit.NewTmux(t, 100, 30, fmt.Sprintf("%s attach %s --load /sleep=60/s", buildBinary(t), ln.Addr()))
	read := func(after time.Duration) (client, handler float64, screen string) {
		time.Sleep(after)
		screen = tm.WaitScreen("the load's /sleep row", 10*time.Second, func(s string) bool { return loadRowRE.MatchString(s) })
		m := loadRowRE.FindStringSubmatch(screen)
		client, _ = strconv.ParseFloat(m[1], 64)
		handler, _ = strconv.ParseFloat(m[2], 64)
		return client, handler, screen
	}
	c1, h1, _ := read(4 * time.Second)
	c2, h2, screen := read(4 * time.Second)
	t.Logf("client p99 %.0f ms then %.0f ms; handler p99 %.1f then %.1f ms\n%s", c1, c2, h1, h2, screen)
	for _, h := range []float64{h1, h2} {
		if h < 19 || h > 30 {
			t.Errorf("handler p99 %.1f ms, want 20 ms (19..30)", h)
		}
	}
	if c2 <= c1 || c2 < 10*h2 {
		t.Errorf("client p99 %.0f then %.0f ms: want it growing with the queue, past 10x the handler's %.1f ms", c1, c2, h2)
	}
	tm.Run("send-keys", "q")
}
