package sweep

// Columns defines every column of the table Result.Write prints, --fit's
// model and the machine line (offtop sweep --help).
const Columns = `columns (every figure the median of the runs, min-max after it when they differ):
  name, Loops   with --loops, --per-task or --priority: the configuration as seed 001
                names it (plain, cluster, worker_threads, both; pool, per-task;
                plain, priority, or +priority after pool and per-task) and its Loops
  size          pool size; inline = 0 workers, the tasks run on the Loop;
                R marks the recommended size (--fit)
  GOMAXPROCS    shown when rows differ in it: the Ps the runtime had
  held          measured seconds at the size (after the warm-up)
  Loop p99 ms   the Loop probe's lateness, p99, corrected for coordinated omission
  HEADLINE p99  the scenario's headline (server: ping, login: file read, io:
                request, count/breakeven: batch wall), p99 in ms; n/a when no
                observation began after the warm-up and ended in the run (a
                batch longer than --duration), while the readouts after the
                table (batch_wall_ms) still show the last one seen
  tasks/s       pool tasks completed per second: the throughput --fit fits
  CPU/wall      process CPU seconds per wall second (1 = one core busy)
  CPU s         process CPU seconds over the measured run
  speed-up      tasks/s over the 1-worker row's (medians)
  efficiency    speed-up / workers: 1 is linear scaling. Meaningful only where
                the 1-worker row is limited by its one worker doing a fixed kind
                of work (count, breakeven). Where something else limits it (the
                Loop, which serves every request of server and login; closed-loop
                clients whose quick requests wait behind slow ones on the one
                worker), a second worker can more than double tasks/s and
                efficiency reads above 1: that is the 1-worker row's limit, not
                faster-than-linear work
  task p99 ms   pool tasks' submit-to-end time, p99
  RSS MiB       resident memory at the end of the run (2^20 bytes)
  arrivals/s    io: tasks submitted per second (the open-loop rate, measured)
  service ms    io: mean time a task holds a worker = mean busy workers / tasks/s
  SCENARIO KEYS the scenario's own figures at the end of the run (its readouts)
  answer        ok when every run's answer checked; "counts off!" when a sample's
                submitted != completed + failed + timed out + running + queued
  spread        "! spread" and the figure when tasks/s or the headline p99 of
                the runs spread over 10%: (max - min) / median
--fit: USL X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)) by least squares
  over every run at sizes >= 1: lambda (tasks/s of one worker), sigma
  (contention), kappa (coherency), N* = sqrt((1-sigma)/kappa), R^2. The size to
  pick, by the scenario's rule: count, breakeven, crash, stall: the USL knee
  (the last size whose next worker adds at least lambda/4; read from the
  measured medians when the fit is poor, R^2 < 0.8); server, login: the lowest
  headline p99 with the Loop's p99 under 50 ms; io: Little's law,
  L = arrivals/s x service time, rounded up.
--attach ADDR --load SPEC: each size is set through the agent, held for a
  warm-up under the load, then the agent's figures are reset and the size is
  held for --duration; its row is the agent's row of that hold. HEADLINE is
  the --route target's client ("/ping client p99 ms"): the load client's p99 of the requests
  due in the hold, from each request's due time (client_p99_ms in --json);
  TARGET server p99 ms is the middleware's p99 of its route at the size (the
  handler's time: server_p99_ms); errors the requests with no answer
  (client_errors). The pick is the latency rule's, over the client p99. The
  program's pool is set back to its size before the sweep at the end and on a
  signal ("attach" in --json: addr, load, target, route, start_workers,
  restored, restore_error).
machine: before the first run and after the last, one thread per CPU spins for
  300ms and reads how long it waited for a CPU (its run delay); above 10% the
  line says BUSY: other work shared the cores and every figure moved with it.
  In --json: "machine" {run_delay_before, run_delay_after, run_delay_limit,
  busy}, shares 0..1.`
