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
// # Your endpoints
//
// Serve your mux through the agent's middleware and the stream carries
// each route's latency over the window, its rate and its status counts
// (the endpoints field, docs/json-lines.md):
//
//	srv := &http.Server{Addr: addr, Handler: a.Middleware(mux)}
//
// A route is the mux's pattern (so "GET /item/{id}" is one route for
// every id); at most MaxRoutes are kept, the rest count as RouteOther,
// and paths no pattern serves count as RouteUnmatched. Recording a
// request costs one allocation and a few hundred ns (BENCHMARKS.md).
//
// # What it serves
//
// Under DefaultPath (/debug/offtop/):
//
//   - GET /debug/offtop/ : an Info object (JSON): the agent, its schema
//     version, its process (pid, start_ticks), whether it takes control.
//     It names no file: a client finds the token itself (Security).
//   - GET /debug/offtop/stream : the Snapshot stream, as JSON Lines over a
//     streamed HTTP response (Content-Type application/x-ndjson; over
//     HTTP/1.1 with "Connection: close", the body running until the
//     connection closes, not chunked): the newest
//     sample at once, then one object per sample (every Options.Interval),
//     each the same object `offtop --headless` prints, with a "schema" field
//     giving its version (docs/json-lines.md).
//   - POST /debug/offtop/action : one action, {"kind":"set_workers","n":4}
//     (kinds: set_workers, add_workers, reset, add_gomaxprocs,
//     default_gomaxprocs), with the header "Authorization: Bearer TOKEN".
//     200 when applied; 401 without the token or with a wrong one (nothing
//     changes); 403 when the program did not opt in (Options.Control); 400
//     for a body that is not one action (a kind that takes n without
//     it among them); 413 for a body over MaxBodyBytes;
//     422 when the action cannot apply, the reason in the body (a size out
//     of 0..256; size 0 on a pool with no inline path, pool.Options.Inline,
//     where every task would stay queued).
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
// creates a random token for this process (32 random bytes, 64 hex
// digits, then a newline) in a new file only the user can read, and logs
// the file's path:
//
//	DIR/offtop-agent-PID-START.token
//
// DIR is Options.TokenDir, else $XDG_RUNTIME_DIR, else os.TempDir()
// ($TMPDIR, else /tmp): DefaultTokenDir. PID is the process id, START
// field 22 of /proc/PID/stat (clock ticks after boot when the process
// started; 0 where there is no /proc): TokenFileName. The file is created
// with O_CREAT|O_EXCL, mode 0600; the agents of one process in one DIR
// share it, and the last one's Close removes it. Before making it, New
// removes the stale token files in DIR: regular files of the user whose
// name is TokenFileName's for a process not running (no such pid, or the
// pid started at another time: a program killed before Close), and
// the one with its own name no agent of this process holds. Info gives
// PID and START (pid, start_ticks) and no path.
//
// `offtop attach` never reads a file the agent names. Without --token it
// looks for the token where the agent on this machine writes it, and
// sends it only to that process: on Linux, when the agent answers on a
// loopback address and the process Info names (pid, start_ticks, checked
// against /proc/PID/stat) holds the socket listening there (its inode in
// /proc/net/tcp or tcp6, at that address or the wildcard, among
// /proc/PID/fd), attach reads DefaultTokenDir()/TokenFileName(pid, start)
// of its own environment, and only if it is a regular file (not a
// symbolic link, one hard link), the user's, mode 0600, at most 256
// bytes, holding letters, digits and -._~+/= (opened O_NOFOLLOW and
// O_NONBLOCK, checked again on the open file), and only when that
// process runs as the user too (its real, effective, saved and
// filesystem uids, /proc/PID/status). Anything else (another host, a pid
// that does not hold the listener, another user's process, a device, a
// FIFO, a link, another owner or mode, a larger file, another DIR, a
// system without /proc) and attach sends no token: control needs
// --token. Each connection that carries the token is checked again when
// made, and attach follows no redirect (info, stream or action): a 3xx is
// the answer, never a hop to another address. After a reconnect the token, found or given, is sent again only
// to the same process: the same pid and start_ticks claimed as the first
// time, that pid running with that start (/proc/PID/stat), and holding
// the listener if the first one was checked to. A pid gone or started at
// another time is another process: no token, and the screen says so; a
// new process checked as above gets its own token. Where nothing can be
// checked (another host, no /proc) a reconnect sends the --token given,
// and only when the claim is unchanged; never a found one.
//
// Reading the stream needs no token: it shows figures, and changes
// nothing. attach bounds each read of the agent: the info within 5 s and
// 64 KiB, each stream line within 3 s (4 sample intervals when longer, at
// most 30 s) of the line before and 4 MiB, each control answer within
// 5 s, its text to 1 KiB. Every string it shows from the agent has its
// control characters written out (\x1b), so no escape reaches the
// terminal.
//
// A slow client never slows the program nor the other clients: samples
// are encoded once and handed to each client's buffer without waiting; a
// client with ClientBuffer lines or ClientBytes bytes waiting there is
// dropped. At most MaxClients streams are served at once, so a client
// that takes no sample must not keep its slot: whatever server the agent
// is mounted on, it takes each stream's connection from the server
// (Hijack; HTTP/1.1), sets the socket's send buffer to ConnWriteBuffer,
// and drops the client when a write does not finish within
// Options.ClientTimeout (WriteTimeout, 5 s, when 0) or, on Linux, when a
// sample it was sent is still unread ClientTimeout after it was written,
// checked at each sample. Unread is what this end's socket still holds
// (SIOCOUTQ) and what the client's kernel holds unread (its receive
// window below the widest it offered, TCP_INFO); that window moves in
// steps (up to 64 KiB on loopback), so a client that never reads is
// dropped within ClientTimeout plus one sample interval after such a step
// of samples has reached it. Elsewhere, and over HTTP/2 (which cannot be
// hijacked: its flow control bounds what waits), only the write deadline
// drops it, once the buffers are full.
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
