package agent_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/pool"
)

// Mount the agent on your own mux, beside your endpoints; then
// `offtop attach 127.0.0.1:PORT` shows this process.
func ExampleAgent_Mount() {
	p, _ := pool.New(pool.Options{Size: 2}) // your pool
	defer p.Close()
	a, err := agent.New(agent.Options{Name: "service", Pool: p, Logf: func(string, ...any) {}})
	if err != nil {
		panic(err)
	}
	defer a.Close()
	mux := http.NewServeMux()
	a.Mount(mux)
	srv := httptest.NewServer(mux) // your server, on loopback
	defer srv.Close()

	resp, err := http.Get(srv.URL + agent.DefaultPath + "stream")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadBytes('\n')
	var s struct {
		Schema   int    `json:"schema"`
		Scenario string `json:"scenario"`
		Workers  int    `json:"workers"`
	}
	_ = json.Unmarshal(line, &s)
	fmt.Println(s.Schema, s.Scenario, s.Workers)
	// Output: 1 service 2
}

// Listen is the one-call form: its own server on a loopback address.
func ExampleListen() {
	a, err := agent.Listen("127.0.0.1:0", agent.Options{Name: "batch"})
	if err != nil {
		panic(err)
	}
	defer a.Close()
	fmt.Println(a.Info().Agent, a.Info().Name, a.Info().Control)

	_, err = agent.Listen("0.0.0.0:7070", agent.Options{})
	fmt.Println(err)
	// Output:
	// offtop batch false
	// agent: address is not loopback (set AllowRemote to serve another): "0.0.0.0:7070"
}

// Serve your mux through Middleware and the stream carries each route's
// figures: latency over the window, rate, status counts.
func ExampleAgent_Middleware() {
	a, err := agent.New(agent.Options{Name: "service", Interval: 20 * time.Millisecond, Logf: func(string, ...any) {}})
	if err != nil {
		panic(err)
	}
	defer a.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /item/{id}", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, r.PathValue("id")) })
	a.Mount(mux)
	srv := httptest.NewServer(a.Middleware(mux)) // your server
	defer srv.Close()
	for _, id := range []string{"1", "2"} {
		resp, err := http.Get(srv.URL + "/item/" + id)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
	}

	resp, err := http.Get(srv.URL + agent.DefaultPath + "stream")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var s struct {
			Endpoints []struct {
				Route  string           `json:"route"`
				Count  int64            `json:"count"`
				Status map[string]int64 `json:"status"`
			} `json:"endpoints"`
		}
		_ = json.Unmarshal(sc.Bytes(), &s)
		if len(s.Endpoints) > 0 && s.Endpoints[0].Count == 2 {
			e := s.Endpoints[0]
			fmt.Println(e.Route, e.Count, e.Status["2xx"])
			break
		}
	}
	// Output: GET /item/{id} 2 2
}
