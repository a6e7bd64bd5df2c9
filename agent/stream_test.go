package agent

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"

	"github.com/offtop/offtop/internal/session"
)

// mounted serves an agent as a program does, on a server of its own
// (not Listen: the server's connections are the OS's defaults).
// readTimeout is the server's ReadTimeout (none when 0).
func mounted(t *testing.T, o Options, readTimeout ...time.Duration) (*Agent, *httptest.Server) {
	t.Helper()
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	a.Mount(mux)
	srv := httptest.NewUnstartedServer(mux)
	for _, d := range readTimeout {
		srv.Config.ReadTimeout = d
	}
	srv.Start()
	t.Cleanup(func() { a.Close(); srv.CloseClientConnections(); srv.Close() })
	return a, srv
}

// neverReads asks for the stream and reads nothing, ever.
func neverReads(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET %sstream HTTP/1.1\r\nHost: x\r\n\r\n", DefaultPath)
	return c
}

// TestClientsThatNeverReadAreDropped: MaxClients clients that never read
// hold every slot of an agent mounted on a server of the program's; a
// client that has not read a sample within ClientTimeout is dropped, so
// a client that reads gets a stream within a few ClientTimeouts (the
// receive windows of the clients that never read fill first), not the
// minutes the kernel's buffers took to fill.
func TestClientsThatNeverReadAreDropped(t *testing.T) {
	const timeout = 500 * time.Millisecond
	a, srv := mounted(t, Options{Pool: newPool(t, 1), Interval: 20 * time.Millisecond, ClientTimeout: timeout})
	addr := srv.Listener.Addr().String()
	for range MaxClients {
		neverReads(t, addr)
	}
	waitClients := func(n int) {
		t.Helper()
		testkit.WaitFor(t, fmt.Sprintf("%d stream clients", n), 0, func() bool {
			a.hub.mu.Lock()
			defer a.hub.mu.Unlock()
			return len(a.hub.clients) == n
		})
	}
	waitClients(MaxClients)
	start := time.Now()
	testkit.WaitFor(t, fmt.Sprintf("a stream (not 503) beside %d clients that never read (ClientTimeout %v)", MaxClients, timeout), 20*timeout, func() bool {
		resp, err := http.Get(srv.URL + DefaultPath + "stream")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false
		}
		if !bufio.NewScanner(resp.Body).Scan() {
			t.Fatal("a stream with no line")
		}
		return true
	})
	t.Logf("a stream after %v", time.Since(start).Round(time.Millisecond))
}

// TestReadingClientKept: a client that reads every sample is never
// dropped, at a sampling period below ClientTimeout and at one above,
// nor when the program's server has a ReadTimeout shorter than the run.
func TestReadingClientKept(t *testing.T) {
	// The two periods at once: each run waits on the stream.
	ivs := []time.Duration{10 * time.Millisecond, 1200 * time.Millisecond}
	testkit.RunEach(t, len(ivs), len(ivs), func(i int) string { return ivs[i].String() }, func(t *testing.T, i int) {
		iv := ivs[i]
		const timeout = time.Second
		_, srv := mounted(t, Options{Pool: newPool(t, 1), Interval: iv, ClientTimeout: timeout}, 500*time.Millisecond)
		resp, err := http.Get(srv.URL + DefaultPath + "stream")
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		n := 0
		for end := time.Now().Add(4 * time.Second); time.Now().Before(end); n++ {
			if !sc.Scan() {
				t.Fatalf("interval %v: the stream of a client that reads ended after %d lines: %v", iv, n, sc.Err())
			}
		}
		resp.Body.Close()
		t.Logf("interval %v: %d lines", iv, n)
	})
}

// TestHubDropsAClientBytesBehind: a client with fewer than ClientBuffer
// lines waiting but more than ClientBytes bytes is dropped.
func TestHubDropsAClientBytesBehind(t *testing.T) {
	big := session.Snapshot{Run: session.Run{Scenario: strings.Repeat("x", ClientBytes/8)}}
	h := newHub(func() session.Snapshot { return big })
	c, _, ok := h.join()
	if !ok {
		t.Fatal("join refused")
	}
	samples := make(chan session.Snapshot, ClientBuffer)
	for range 9 {
		samples <- big
	}
	close(samples)
	h.run(samples)
	select {
	case <-c.dropped:
	default:
		t.Fatalf("a client %d bytes behind was kept", c.bytes.Load())
	}
	if n := len(c.lines); n >= ClientBuffer || n == 0 {
		t.Fatalf("%d lines waiting, want some, under %d", n, ClientBuffer)
	}
}
