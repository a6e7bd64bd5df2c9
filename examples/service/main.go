// Command service is a small HTTP service that mounts offtop's agent, so
// `offtop attach` shows its pool and its loop live and resizes the pool:
//
//	go run ./examples/service            # serves 127.0.0.1:7070, with its own load
//	offtop attach 127.0.0.1:7070         # the dashboard of this process
//
// Endpoints: /ping answers from the service's single-goroutine loop (as a
// Node.js server's main thread would), /fib?n=30 computes a Fibonacci
// number on the pool (inline on the loop at pool size 0), /pool reports
// the pool's size ({"workers":N}), and /debug/offtop/ is the agent. With
// --load N (default 2) the service runs N closed-loop clients of /fib and
// a /ping every 50ms against itself.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/pool"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "service:", err)
		os.Exit(2)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("service", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:7070", "address of the endpoints and the agent (loopback unless --allow-remote)")
	allowRemote := fs.Bool("allow-remote", false, "allow a --listen address that is not loopback (the agent then answers there too)")
	workers := fs.Int("workers", 2, "initial pool size (0 = inline on the loop)")
	load := fs.Int("load", 2, "closed-loop /fib clients the service runs against itself (0: none)")
	fibN := fs.Int("fib", 30, "n of the load's /fib requests")
	noAgent := fs.Bool("no-agent", false, "run without offtop's agent (to measure what it costs)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !*allowRemote {
		if err := agent.CheckLoopback(*listen); err != nil {
			return fmt.Errorf("--listen: %w", err)
		}
	}

	// A stop signal from here on ends the service through the path that
	// removes the agent's token file, even one that comes before it serves.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	// The service's own parts: a single-goroutine loop and a pool whose
	// size-0 tasks run on that loop.
	loop := newLoop()
	defer loop.close()
	p, err := pool.New(pool.Options{Size: *workers, Inline: loop.post})
	if err != nil {
		return fmt.Errorf("--workers: %w", err)
	}
	defer p.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("/ping", func(w http.ResponseWriter, r *http.Request) {
		done := make(chan struct{})
		loop.post(func() { close(done) }) // answered when the loop gets to it
		<-done
		io.WriteString(w, "pong\n")
	})
	mux.HandleFunc("/fib", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("n"))
		if err != nil || n < 0 || n > 40 {
			http.Error(w, "n: want 0..40", http.StatusBadRequest)
			return
		}
		var v int
		if err := p.Do(func() { v = fib(n) }); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, v)
	})
	mux.HandleFunc("/pool", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]int{"workers": p.Size()})
	})

	// offtop's agent: five lines.
	logger := log.New(stderr, "service: ", 0)
	closeAgent := func() {}
	var handler http.Handler = mux
	if !*noAgent {
		a, err := agent.New(agent.Options{Name: "service", Pool: p, Post: loop.post, Control: true,
			AllowRemote: *allowRemote, Logf: logger.Printf})
		if err != nil {
			return err
		}
		defer a.Close()
		a.Mount(mux)
		handler = a.Middleware(mux) // each route's latency and status, in the stream's endpoints
		closeAgent = a.Close
	}

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("--listen: %w", err)
	}
	addr := ln.Addr().String()
	if *noAgent {
		logger.Printf("serving http://%s/ping, /fib?n=30, /pool; no offtop agent (--no-agent): offtop attach has nothing to read here", addr)
	} else {
		logger.Printf("serving http://%s/ping, /fib?n=30, /pool; offtop agent at http://%s%s", addr, addr, agent.DefaultPath)
		logger.Printf("watch it: offtop attach %s", addr)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	var wg sync.WaitGroup
	startLoad(ctx, &wg, "http://"+addr, *load, *fibN)

	select {
	case <-ctx.Done():
	case err := <-served:
		return err
	}
	stop()
	wg.Wait()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	closeAgent() // ends the agent's streams, which Shutdown would wait for
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// startLoad runs n closed-loop clients of /fib?n=fibN and one /ping every
// 50ms until ctx ends.
func startLoad(ctx context.Context, wg *sync.WaitGroup, base string, n, fibN int) {
	if n <= 0 {
		return
	}
	c := &http.Client{Timeout: 10 * time.Second}
	get := func(url string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return
		}
		if resp, err := c.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		} else if ctx.Err() == nil {
			time.Sleep(100 * time.Millisecond) // the server is not up or is closing
		}
	}
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				get(fmt.Sprintf("%s/fib?n=%d", base, fibN))
			}
		})
	}
	wg.Go(func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				get(base + "/ping")
			}
		}
	})
}

// loop is the service's single goroutine running callbacks in order, as a
// Node.js main thread does.
type loop struct {
	mu    sync.Mutex
	queue []func()
	wake  chan struct{}
	done  chan struct{}
}

func newLoop() *loop {
	l := &loop{wake: make(chan struct{}, 1), done: make(chan struct{})}
	go l.run()
	return l
}

// post queues fn and returns at once (the agent and the pool need a post
// that never blocks).
func (l *loop) post(fn func()) {
	l.mu.Lock()
	l.queue = append(l.queue, fn)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *loop) run() {
	for {
		select {
		case <-l.done:
			return
		case <-l.wake:
		}
		for {
			l.mu.Lock()
			if len(l.queue) == 0 {
				l.mu.Unlock()
				break
			}
			fn := l.queue[0]
			l.queue = l.queue[1:]
			l.mu.Unlock()
			fn()
		}
	}
}

func (l *loop) close() { close(l.done) }

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}
