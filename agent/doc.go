// Package agent puts offtop inside your own Go program: it samples the
// process (GOMAXPROCS, goroutines, RSS, CPU time), the lateness of your
// loop (a Loop probe posted on the Post you give, corrected for
// coordinated omission) and your pool, and serves them to
// `offtop attach ADDR`, which shows the same dashboard as offtop's own
// scenarios and resizes your pool with the same keys.
//
// Mount it on your mux, beside /debug/pprof/:
//
//	a, err := agent.New(agent.Options{Name: "service", Pool: p, Control: true})
//	if err != nil { ... }
//	defer a.Close()
//	a.Mount(mux) // serves /debug/offtop/
//
// or start it on its own loopback listener in one call:
//
//	a, err := agent.Listen("127.0.0.1:7070", agent.Options{Pool: p})
//
// # What it serves
//
// Under DefaultPath (/debug/offtop/):
//
//   - GET /debug/offtop/ : an Info object (JSON): the agent, its schema
//     version, whether it takes control, and the token file's path.
//   - GET /debug/offtop/stream : the Snapshot stream, as JSON Lines over a
//     chunked HTTP response (Content-Type application/x-ndjson): the newest
//     sample at once, then one object per sample (every Options.Interval),
//     each the same object `offtop --headless` prints, with a "schema" field
//     giving its version (docs/json-lines.md).
//   - POST /debug/offtop/action : one action, {"kind":"set_workers","n":4}
//     (kinds: set_workers, add_workers, reset, add_gomaxprocs,
//     default_gomaxprocs), with the header "Authorization: Bearer TOKEN".
//     200 when applied; 401 without the token or with a wrong one (nothing
//     changes); 403 when the program did not opt in (Options.Control); 400
//     for a body that is not one action; 413 for a body over MaxBodyBytes;
//     422 when the action cannot apply (a size out of 0..256).
//   - GET /debug/offtop/control : 204 when the token would be accepted;
//     401 and 403 as for an action.
//   - GET /debug/offtop/metrics (MetricsPath): the Prometheus exposition
//     of Collector (Loop lateness, the pool's sizes, counts, per-worker
//     busy and on-CPU seconds, task wait and run time; docs/fleet.md lists
//     them). A program that serves its own /metrics registers
//     Agent.Collector instead, or mounts Agent.MetricsHandler.
//
// # Security
//
// The agent answers only requests that reach the process on a loopback
// address unless Options.AllowRemote is set (a request on another one gets
// 403), and Listen refuses to bind another address without it
// (ErrNotLoopback). Control is off unless Options.Control; with it, New
// creates a random token for this process in a file only the user can
// read (0600, in $XDG_RUNTIME_DIR or the temp dir), logs the file's path,
// and removes it on Close. Reading the stream needs no token: it shows
// figures, and changes nothing.
//
// A slow client never slows the program nor the other clients: samples
// are encoded once and handed to each client's buffer of ClientBuffer
// lines without waiting; a client whose buffer is full, or whose write
// does not finish within WriteTimeout, is dropped. At most MaxClients
// streams are served at once.
//
// # Cost
//
// The agent runs two probes (one posted on your loop every Resolution, one
// on a free goroutine) and a sampler every Interval, on their own
// goroutines; a sample is encoded only while a client is attached.
//
// # Concurrency
//
// All methods of Agent are safe for concurrent use; Close is safe twice.
// The program keeps owning its pool: close it after the agent.
package agent
