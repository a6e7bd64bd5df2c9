'use strict';
// The offtop agent for Node: samples this process (the main thread's
// lateness, event-loop utilization of the main thread and every worker,
// RSS, heap, CPU time) and its pool, and serves them on the wire of
// offtop's Go agent (package agent), so `offtop attach ADDR` shows them
// and resizes the pool. Everything runs on the main thread; its timers
// and server are unref'd, so the agent never keeps a program alive.
const http = require('node:http');
const fs = require('node:fs');
const os = require('node:os');
const net = require('node:net');
const path = require('node:path');
const crypto = require('node:crypto');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { Recorder, Exact, toJSON } = require('./hist');
const { LagProbe } = require('./probe');
const metrics = require('./metrics');
const threads = require('./threads');
const routes = require('./routes');
const { Pool, MAX_WORKERS } = require('./pool');
const { Machine, othersCPUs, busy: machineBusy } = require('./machine');

const SCHEMA = 1;
const DEFAULT_PATH = '/debug/offtop/';
const MAX_BODY_BYTES = 4 << 10;
// The action kinds whose n is their argument, as the Go agent's (session.takesN).
const TAKES_N = new Set(['set_workers', 'add_workers', 'load', 'add_gomaxprocs', 'turn']);
const CLIENT_BUFFER = 16; // lines a client may be behind before it is dropped
const WRITE_TIMEOUT_MS = 5000;
const MAX_CLIENTS = 16;
const HISTORY_LEN = 240;
// MAX_SERVED bounds the sizes rows' served histograms (a route at a size
// each, about 21.5 KiB apiece: 11 MiB); a pair first seen after them is
// not filed (its request still counts in endpoints).
const MAX_SERVED = 512;
const LOOK = "your program: the Loop probe is its main thread's lateness; the pool is its pool";
// OTHERS_WINDOW_MS is the span the live others figure is over (the Go
// session's othersWindow).
const OTHERS_WINDOW_MS = 1000;

// checkLoopback throws unless addr (host:port) names a loopback address
// (127.0.0.0/8, ::1, localhost); an empty host is every interface.
function checkLoopback(addr) {
  const { host } = splitHostPort(addr);
  if (!isLoopback(host)) {
    throw new Error(`offtop agent: address ${JSON.stringify(addr)} is not loopback (set allowRemote to serve another)`);
  }
}

function splitHostPort(addr) {
  const m = /^(?:\[([^\]]*)\]|([^:]*)):(\d+)$/.exec(String(addr));
  if (!m) throw new Error(`offtop agent: address ${JSON.stringify(addr)}: want host:port`);
  return { host: m[1] !== undefined ? m[1] : m[2], port: Number(m[3]) };
}

function isLoopback(host) {
  if (host === 'localhost') return true;
  if (host.startsWith('::ffff:')) host = host.slice(7);
  if (net.isIPv4(host)) return host.split('.')[0] === '127';
  if (net.isIPv6(host)) return /^(0{0,4}:){7}0{0,3}1$|^::1$/.test(host);
  return false;
}

// startTicks is when process pid started, in clock ticks after boot
// (field 22 of /proc/PID/stat); 0 where unknown, null when pid is not
// running.
function startTicks(pid) {
  let s;
  try {
    s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    return err.code === 'ENOENT' ? null : 0;
  }
  return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[19]) || 0;
}

// tokenFileName is the Go agent's name for the token file of the process
// pid that started at start: offtop-agent-PID-START.token.
function tokenFileName(pid, start) {
  return `offtop-agent-${pid}-${start}.token`;
}

// removeStale removes the user's token files in dir of processes not
// running (no such pid, or one started at another time), and this
// process's own, which no agent holds.
function removeStale(dir, me) {
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^offtop-agent-(\d+)-(\d+)\.token$/.exec(name);
    if (!m) continue;
    const p = path.join(dir, name);
    let st;
    try {
      st = fs.lstatSync(p);
    } catch {
      continue;
    }
    if (!st.isFile() || st.uid !== process.getuid()) continue;
    const pid = Number(m[1]);
    const start = Number(m[2]);
    const now = pid === me.pid ? me.start : startTicks(pid);
    if ((pid === me.pid && start === me.start) || now === null || (now !== 0 && now !== start)) {
      try {
        fs.unlinkSync(p);
      } catch {}
    }
  }
}

// tokens are this process's token files by path: agents of one process
// in one directory share one file and its token.
const tokens = new Map();

// acquireToken returns this process's token file in dir ($XDG_RUNTIME_DIR,
// else the temp dir, when empty) and its token, named and made as the Go
// agent makes it: offtop-agent-PID-START.token, 32 random bytes in hex and
// a newline, created anew (O_EXCL, never through a link), mode 0600; the
// stale files in dir removed first.
function acquireToken(dir) {
  dir = dir || process.env.XDG_RUNTIME_DIR || os.tmpdir();
  const me = { pid: process.pid, start: startTicks(process.pid) || 0 };
  const p = path.join(dir, tokenFileName(me.pid, me.start));
  const held = tokens.get(p);
  if (held) {
    held.users++;
    return { path: p, token: held.token };
  }
  removeStale(dir, me);
  const token = crypto.randomBytes(32).toString('hex');
  let fd;
  try {
    fd = fs.openSync(p, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
    fs.fchmodSync(fd, 0o600);
    fs.writeSync(fd, token + '\n');
  } catch (err) {
    throw new Error(`offtop agent: token file: ${err.message}`);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  tokens.set(p, { token, users: 1 });
  return { path: p, token };
}

// releaseToken removes the token file at p when its last agent lets go.
function releaseToken(p) {
  const held = tokens.get(p);
  if (held && --held.users > 0) return;
  tokens.delete(p);
  try {
    fs.unlinkSync(p);
  } catch {}
}

// cpuQuota is the cgroup CPU quota in CPUs, 0 when none or unknown.
function cpuQuota() {
  try {
    const [q, p] = fs.readFileSync('/sys/fs/cgroup/cpu.max', 'utf8').trim().split(/\s+/);
    if (q !== 'max' && Number(p) > 0) return Number(q) / Number(p);
    return 0;
  } catch {}
  try {
    const q = Number(fs.readFileSync('/sys/fs/cgroup/cpu/cpu.cfs_quota_us', 'utf8'));
    const p = Number(fs.readFileSync('/sys/fs/cgroup/cpu/cpu.cfs_period_us', 'utf8'));
    if (q > 0 && p > 0) return q / p;
  } catch {}
  return 0;
}

// machine is the CPUs Node has, and the pool size offtop suggests: the
// usable CPUs floored, less one for the main thread (at least 1).
function machine() {
  const numCPU = os.cpus().length || 1;
  const affinity = os.availableParallelism ? os.availableParallelism() : numCPU;
  const quota = cpuQuota();
  let cpus = numCPU;
  let what = `${numCPU} CPU${numCPU === 1 ? '' : 's'}`;
  if (affinity > 0 && affinity < numCPU) {
    cpus = affinity;
    what = `${cpus} CPU${cpus === 1 ? '' : 's'} in the affinity mask`;
  }
  if (quota > 0 && quota < cpus) what = `${Number(quota.toPrecision(3))} CPU quota`;
  const usable = quota > 0 ? Math.min(cpus, quota) : cpus;
  let n = Math.max(Math.floor(usable), 1);
  let rule = usable < 1 ? `at least 1 (${what})` : `floor(${what})`;
  if (n > 1) {
    n--;
    rule += ' - 1 for the main thread';
  }
  return {
    gomaxprocs: affinity,
    num_cpu: numCPU,
    cpu_limit: quota > 0 ? round3(quota) : null,
    affinity_cpus: affinity,
    gomaxprocs_source: 'node', // the view names Node's figures by it
    suggested_workers: n,
    suggested_rule: `suggest ${n} = ${rule}`,
    usable,
    libuvThreads: libuvThreads(process.env.UV_THREADPOOL_SIZE),
  };
}

// libuvThreads is the size of libuv's threadpool (fs, dns.lookup, crypto,
// zlib) as libuv reads UV_THREADPOOL_SIZE (v): 4 unset, atoi's value
// otherwise, 0 as 1, at most 1024 (a negative one too: libuv reads it
// unsigned).
function libuvThreads(v) {
  if (v === undefined) return 4;
  const n = parseInt(String(v).trim(), 10) || 0;
  if (n === 0) return 1;
  return n < 0 || n > 1024 ? 1024 : n;
}

function round3(v) {
  return Math.round(v * 1000) / 1000;
}

// rowOthers is a size row's others: the CPUs' worth of time the rest of the
// machine used while it was held (3 decimals); null when unknown or not
// held.
function rowOthers(row) {
  return row.othersKnown && row.othersWallMs > 0 ? round3(row.othersMs / row.othersWallMs) : null;
}

// threadCPUms is the CPU time in ms of thread tid of this process, from
// /proc (null when unknown).
const TICK_MS = 10; // USER_HZ is 100 on Linux
function threadCPUms(tid) {
  if (!tid) return null;
  try {
    const s = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS; // utime, stime: fields 14 and 15
  } catch {
    return null;
  }
}

function isPiscina(p) {
  return p && !(p instanceof Pool) && typeof p.run === 'function' && 'queueSize' in p && 'threads' in p;
}

class HTTPError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

class Agent {
  constructor(o = {}) {
    this.o = {
      name: o.name || 'program',
      control: !!o.control,
      allowRemote: !!o.allowRemote,
      intervalMs: o.intervalMs || 250,
      resolutionMs: o.resolutionMs || 10,
      windowMs: o.windowMs || 5000,
      tokenDir: o.tokenDir || '',
      http: o.http !== false,
      log: o.log || ((line) => process.stderr.write(line + '\n')),
    };
    this.startedAt = performance.now();
    this.machine = machine();
    this.mach = new Machine(); // the rest of the machine's CPU (others_cpus)
    this.machSeen = []; // its readings over about the last OTHERS_WINDOW_MS, oldest first
    this.probe = new LagProbe({ resolutionMs: this.o.resolutionMs, windowMs: this.o.windowMs });
    this.eld = monitorEventLoopDelay({ resolution: this.o.resolutionMs });
    this.task = new Recorder(this.o.windowMs);
    this.taskWait = new Recorder(this.o.windowMs);
    this.taskRun = new Recorder(this.o.windowMs);
    this.pool = null;
    this.piscina = null;
    this.clients = new Set();
    this.history = [];
    this.sizes = new Map(); // workers -> row
    this.samplesMissed = 0;
    this.servedHists = 0; // served histograms made, up to MAX_SERVED
    this.server = null;
    this.tokenFile = '';
    this.token = '';
    this.closed = false;
    if (this.o.control) {
      const t = acquireToken(this.o.tokenDir);
      this.tokenFile = t.path;
      this.token = t.token;
      this.o.log(`offtop agent: control token in ${t.path} (mode 0600)`);
    }
    this.info = {
      agent: 'offtop',
      schema: SCHEMA,
      name: this.o.name,
      pid: process.pid,
      start_ticks: startTicks(process.pid) || 0,
      control: this.o.control,
      interval_ms: this.o.intervalMs,
    };
    this.onExit = () => this.removeToken();
    process.once('exit', this.onExit);
    this.onSignal = (sig) => {
      this.removeToken();
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig); // the default: die of it
    };
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(sig, this.onSignal);
    this.resetBaselines();
    this.routes = null;
    if (this.o.http) {
      this.routes = new routes.Routes(this.o.windowMs);
      this.serving = { routes: this.routes, prefix: DEFAULT_PATH, handle: (req, res) => this.handle(req, res) };
      this.routes.arrive = () => ({ row: this.sizeNow(), gen: this.sizeGen });
      this.routes.served = (label, tag, ns) => {
        if (!tag) return;
        const row = tag.row;
        this.sizeNow();
        if (tag.gen !== this.sizeGen) {
          row.unsettled++; // another size came into force meanwhile
          return;
        }
        let e = row.served.get(label);
        if (!e) {
          if (this.servedHists >= MAX_SERVED) return;
          this.servedHists++;
          row.served.set(label, (e = new Exact()));
        }
        e.record(ns);
      };
      routes.serve(this.serving);
    }
    this.probe.observe = (late) => {
      const row = this.sizeNow();
      if (performance.now() - late / 1e6 < this.sizeSince) {
        if (this.sizeBefore) this.sizeBefore.unsettled++; // due before the last change
        return;
      }
      row.probe.record(late, this.o.resolutionMs * 1e6);
    };
    this.eld.enable();
    this.probe.start();
    this.last = null;
    this.prev = this.reading();
    this.sizeNow();
    this.latest = this.sample(this.prev);
    this.t0 = performance.now();
    this.k = 1;
    this.scheduleSample();
  }

  resetBaselines() {
    this.eluBase = performance.eventLoopUtilization();
    this.threadBase = new Map();
    for (const e of threads.live.values()) if (e.online) this.threadBase.set(e, e.worker.performance.eventLoopUtilization());
  }

  // watch hands the agent the program's pool: an offtop Pool (resized by
  // the dashboard) or a piscina pool (shown, never resized).
  watch(p) {
    if (isPiscina(p)) {
      this.piscina = wrapPiscina(p, this);
      this.pool = null;
    } else if (p instanceof Pool || (p && typeof p.resize === 'function' && typeof p.stats === 'function')) {
      this.pool = p;
      this.piscina = null;
      p.onTask = (waitMs, runMs) => {
        this.taskWait.record(waitMs * 1e6);
        this.taskRun.record(runMs * 1e6);
        this.task.record((waitMs + runMs) * 1e6);
      };
    } else {
      throw new TypeError('offtop agent: watch needs an offtop Pool or a piscina pool');
    }
    this.sizeNow();
    return p;
  }

  workers() {
    if (this.pool) return this.pool.size;
    if (this.piscina) return this.piscina.p.threads.length;
    return 0;
  }

  sizeRow(n) {
    let row = this.sizes.get(n);
    if (!row) {
      // served: route -> Exact, the requests that arrived at this size;
      // unsettled: observations begun at this size and left out (sizeNow)
      // others*: the rest of the machine's CPU time while held, over
      // othersWallMs of the machine readings' time; othersKnown false
      // once a reading was unknown
      row = { workers: n, heldMs: 0, completed: 0, cpuMs: 0, probe: new Exact(), served: new Map(), unsettled: 0,
        othersMs: 0, othersWallMs: 0, othersKnown: true, cpus: 0 };
      this.sizes.set(n, row);
    }
    return row;
  }

  // sizeNow is the row of the pool's size now. A size other than the one
  // last seen (or a reset) starts a stretch: sizeGen counts them,
  // sizeSince is when it was seen (performance.now() ms), sizeBefore the
  // row before. An observation that began before it and ends after it
  // counts in no row, as the Go session files it (either size may have
  // made its time): a request in the unsettled of the row it arrived at,
  // a probe tick in sizeBefore's (the row it was due at, unless the size
  // changed twice meanwhile).
  sizeNow() {
    const n = this.workers();
    if (n !== this.sizeSeen) this.newStretch(this.sizeSeen === undefined ? null : this.sizeRow(this.sizeSeen), n);
    return this.sizeRow(n);
  }

  newStretch(before, n) {
    this.sizeBefore = before;
    this.sizeSeen = n;
    this.sizeGen = (this.sizeGen || 0) + 1;
    this.sizeSince = performance.now();
  }

  scheduleSample() {
    const due = this.t0 + this.k * this.o.intervalMs;
    this.timer = setTimeout(() => this.tick(), Math.max(0, due - performance.now()));
    this.timer.unref();
  }

  tick() {
    const now = performance.now();
    const next = Math.floor((now - this.t0) / this.o.intervalMs) + 1;
    if (next - this.k > 1) this.samplesMissed += next - this.k - 1;
    this.k = Math.max(next, this.k + 1);
    const r = this.reading();
    this.latest = this.sample(r);
    this.prev = r;
    if (this.clients.size > 0) {
      const line = JSON.stringify(this.latest) + '\n';
      for (const c of this.clients) c.send(line);
    }
    if (!this.closed) this.scheduleSample();
  }

  // reading is the raw counters now; a sample is two readings apart.
  reading() {
    const p = this.pool ? this.pool.stats() : this.piscina ? this.piscina.stats() : null;
    return {
      at: performance.now(),
      cpu: process.cpuUsage(),
      elu: performance.eventLoopUtilization(),
      pool: p,
      workers: this.workers(),
      threads: new Map([...threads.live.values()].filter((e) => e.online).map((e) => [e, e.worker.performance.eventLoopUtilization()])),
      threadCPU: p ? new Map(p.workers.map((w) => [w.slot, threadCPUms(w.tid)])) : new Map(),
      mach: this.mach.read(),
    };
  }

  // sample is the stream's object for the interval from this.prev to r.
  sample(r) {
    const prev = this.prev;
    const dt = Math.max(r.at - prev.at, 1e-3);
    const cpuMs = (c) => (c.user + c.system) / 1e3;
    const cpuNowMs = cpuMs(r.cpu);
    const mem = process.memoryUsage();
    const p = r.pool;
    // the row of the size that held since the last reading
    const row = this.sizeRow(prev.workers);
    row.heldMs += r.at - prev.at;
    if (p && prev.pool) row.completed += p.completed - prev.pool.completed;
    row.cpuMs += cpuNowMs - cpuMs(prev.cpu);
    if (!prev.mach.known || !r.mach.known) row.othersKnown = false;
    else if (r.mach.at > prev.mach.at) {
      row.othersMs += othersCPUs(prev.mach, r.mach) * (r.mach.at - prev.mach.at);
      row.othersWallMs += r.mach.at - prev.mach.at;
      row.cpus = Math.max(row.cpus, r.mach.cpus);
    }
    this.sizeRow(r.workers);
    const others = this.others(r.mach);
    const st = this.probe.stats();
    // throughput over the window
    this.history.push({ at: r.at, completed: p ? p.completed : 0, p99: st.last1s.count > 0 ? round3(st.last1s.p99 / 1e6) : null });
    if (this.history.length > HISTORY_LEN) this.history.shift();
    let first = this.history.length - 1;
    while (first > 0 && r.at - this.history[first - 1].at <= this.o.windowMs) first--;
    const h0 = this.history[first];
    const tput = r.at > h0.at ? ((p ? p.completed : 0) - h0.completed) / ((r.at - h0.at) / 1e3) : 0;
    const prevBusy = new Map(prev.pool ? prev.pool.workers.map((w) => [w.slot, w.busyMs]) : []);
    const ws = p ? p.workers : [];
    const busy = ws.map((w) => clamp01((w.busyMs - (prevBusy.get(w.slot) ?? w.busyMs)) / dt));
    let oncpu = ws.map((w) => {
      const a = prev.threadCPU.get(w.slot);
      const b = r.threadCPU.get(w.slot);
      return a == null || b == null ? null : clamp01((b - a) / dt);
    });
    if (oncpu.some((v) => v === null)) oncpu = null;
    const extra = this.extra(r, prev, mem);
    const queued = p ? p.queued : 0;
    return {
      schema: SCHEMA,
      t_s: round3((r.at - this.startedAt) / 1e3),
      scenario: this.o.name,
      paused: false,
      per_task: false,
      look: LOOK,
      gomaxprocs: this.machine.gomaxprocs,
      num_cpu: this.machine.num_cpu,
      cpu_limit: this.machine.cpu_limit,
      affinity_cpus: this.machine.affinity_cpus,
      gomaxprocs_source: this.machine.gomaxprocs_source,
      suggested_workers: this.machine.suggested_workers,
      suggested_rule: this.machine.suggested_rule,
      oversubscribed: r.workers > this.machine.usable,
      others_cpus: others === null ? null : round3(others),
      machine_busy: machineBusy(others, r.mach.cpus),
      load: this.piscina ? "the program's own (piscina pool)" : "the program's own",
      extra,
      workers: r.workers,
      queue_depth: queued,
      submitted: p ? p.submitted : 0,
      completed: p ? p.completed : 0,
      failed: p ? p.failed : 0,
      running: p ? p.running : 0,
      rejected: 0,
      replaced: 0,
      timed_out: 0,
      abandoned: 0,
      stuck: 0,
      throughput_per_s: round3(tput),
      worker_slots: ws.map((w) => w.slot),
      worker_busy: busy.map(round3),
      worker_oncpu: oncpu && oncpu.map(round3),
      worker_retiring: ws.map((w) => !!w.retiring),
      task: toJSON(this.task.window()),
      task_wait: toJSON(this.taskWait.window()),
      task_run: toJSON(this.taskRun.window()),
      loop_busy: round3(performance.eventLoopUtilization(r.elu, prev.elu).utilization),
      loop_queued: queued && r.workers === 0 ? queued : 0,
      cpu_percent: round3(((cpuNowMs - cpuMs(prev.cpu)) / dt) * 100),
      cpu_seconds: round3(cpuNowMs / 1e3),
      rss_bytes: mem.rss,
      goroutines: 1 + threads.live.size,
      probe: toJSON(st.corrected),
      probe_raw: toJSON(st.raw),
      probe_total: toJSON(st.correctedAll),
      probe_missed: st.missed,
      probe_stalled_ms: 0,
      sched: toJSON({ count: 0 }), // no free thread to probe from: n/a
      sched_runtime: toJSON({ count: 0 }),
      sizes: this.sizesJSON(r.workers),
      actions: this.actions(),
      search: null,
      endpoints: this.routes ? this.routes.read() : null,
      samples_missed: this.samplesMissed,
      interval_ms: this.o.intervalMs,
      resolution_ms: this.o.resolutionMs,
      window_s: round3(this.o.windowMs / 1e3),
      probe_p99_1s_ms: this.history[this.history.length - 1].p99,
    };
  }

  // extra is what Node has and Go has not, keyed with their units:
  // monitorEventLoopDelay as Node reports it (since reset), event-loop
  // utilization of the main thread and each worker (over the last
  // interval, and _total since reset), heap, the process's wall time.
  extra(r, prev, mem) {
    const e = {};
    const ns = (v) => round3(v / 1e6);
    const n = this.eld.count;
    e.eld_p50_ms = n > 0 ? ns(this.eld.percentile(50)) : null;
    e.eld_p99_ms = n > 0 ? ns(this.eld.percentile(99)) : null;
    e.eld_max_ms = n > 0 ? ns(this.eld.max) : null;
    e.elu_main = round3(performance.eventLoopUtilization(r.elu, prev.elu).utilization);
    e.elu_main_total = round3(performance.eventLoopUtilization(r.elu, this.eluBase).utilization);
    // the pool's workers by place in slot order, as the meters name them
    // (w0 the lowest slot), not by slot
    const place = new Map(this.pool && r.pool ? r.pool.workers.map((w, i) => [`w${w.slot}`, `w${i}`]) : []);
    for (const [t, now] of r.threads) {
      const name = t.pool && t.pool === this.pool ? place.get(t.label) : t.label;
      if (!name) continue; // retired since the pool's figures were read
      const before = prev.threads.get(t);
      let base = this.threadBase.get(t);
      if (!base) {
        base = before || { idle: 0, active: 0 };
        this.threadBase.set(t, base);
      }
      e[`elu_${name}`] = before ? round3(clamp01(util(now, before))) : null;
      e[`elu_${name}_total`] = round3(clamp01(util(now, base)));
    }
    e.heap_used_bytes = mem.heapUsed;
    e.heap_total_bytes = mem.heapTotal;
    e.external_bytes = mem.external;
    e.wall_s = round3(process.uptime());
    e.libuv_threads = this.machine.libuvThreads;
    if (this.piscina) Object.assign(e, this.piscina.extra());
    return e;
  }

  // others adds m to the readings seen and returns the others' CPUs over
  // about the last OTHERS_WINDOW_MS (null: unknown), as the Go session's
  // live figure: at 250 ms a reading moves by 50 ticks of 10 ms on 2
  // CPUs, too coarse alone.
  others(m) {
    const seen = this.machSeen;
    seen.push(m);
    let i = 0;
    while (i < seen.length - 2 && m.at - seen[i + 1].at >= OTHERS_WINDOW_MS) i++;
    seen.splice(0, i);
    return othersCPUs(seen[0], m);
  }

  sizesJSON(current) {
    return [...this.sizes.values()]
      .filter((row) => row.heldMs > 0 || row.workers === current)
      .sort((a, b) => a.workers - b.workers)
      .map((row) => {
        const s = row.probe.summary();
        const held = row.heldMs / 1e3;
        return {
          scenario: this.o.name,
          workers: row.workers,
          gomaxprocs: this.machine.gomaxprocs,
          held_s: round3(held),
          probe_p99_ms: s.count > 0 ? round3(s.p99 / 1e6) : null,
          probe_max_ms: s.count > 0 ? round3(s.max / 1e6) : null,
          probe_count: s.count,
          headline: 'probe',
          headline_p99_ms: s.count > 0 ? round3(s.p99 / 1e6) : null,
          headline_count: s.count,
          throughput_per_s: held > 0 ? round3(row.completed / held) : 0,
          cpu_per_wall: held > 0 ? round3(row.cpuMs / row.heldMs) : null,
          answer_ok: null,
          current: row.workers === current,
          unsettled: row.unsettled,
          served: Object.fromEntries([...row.served].map(([route, e]) => [route, toJSON(e.summary())])),
          others_cpus: rowOthers(row),
          machine_busy: machineBusy(rowOthers(row), row.cpus),
        };
      });
  }

  // actions are the action kinds apply carries out now: a resize only
  // with an offtop Pool to resize.
  actions() {
    return this.pool ? ['set_workers', 'add_workers', 'reset'] : ['reset'];
  }

  // apply carries out one action ({kind, n}) or throws an HTTPError 422.
  apply(a) {
    switch (a.kind) {
      case 'set_workers':
      case 'add_workers': {
        if (this.piscina) {
          throw new HTTPError(422, "offtop agent: a piscina pool is not resized live (its minThreads and maxThreads are fixed when it is made); an offtop Pool is");
        }
        if (!this.pool) throw new HTTPError(422, 'offtop agent: no pool to resize (the program has made none)');
        let n = a.kind === 'set_workers' ? a.n : Math.min(Math.max(this.pool.size + a.n, 0), MAX_WORKERS);
        if (!Number.isInteger(n) || n < 0 || n > MAX_WORKERS) {
          throw new HTTPError(422, `offtop agent: pool size ${a.n} out of 0..${MAX_WORKERS}`);
        }
        this.pool.resize(n);
        return;
      }
      case 'reset':
        this.probe.reset();
        this.eld.reset();
        this.task.reset();
        this.taskWait.reset();
        this.taskRun.reset();
        this.resetBaselines();
        // The sizes rows and their served histograms start again too, as
        // the Go session's Reset clears its rows: a row after a reset
        // holds only what came after it.
        this.sizes = new Map();
        this.servedHists = 0;
        this.newStretch(null, this.workers());
        this.sizeRow(this.workers());
        return;
      case 'add_gomaxprocs':
      case 'default_gomaxprocs':
        throw new HTTPError(422, 'offtop agent: Node has no GOMAXPROCS (its threads are the main thread and the workers)');
      default:
        throw new HTTPError(422, `offtop agent: ${a.kind} does not apply to a Node program`);
    }
  }

  // handle serves req when its path is under /debug/offtop/ and reports
  // whether it did (mount the agent on the program's own server with it).
  handle(req, res) {
    const url = (req.url || '').split('?')[0];
    if (!url.startsWith(DEFAULT_PATH)) return false;
    if (!this.o.allowRemote && !isLoopback(req.socket.localAddress || '')) {
      return reply(res, 403, 'offtop agent: loopback only'), true;
    }
    switch (url.slice(DEFAULT_PATH.length)) {
      case '':
        if (req.method !== 'GET' && req.method !== 'HEAD') return reply(res, 405, 'GET only'), true;
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(this.info) + '\n');
        return true;
      case 'stream':
        if (req.method !== 'GET') return reply(res, 405, 'GET only'), true;
        this.serveStream(req, res);
        return true;
      case 'control':
        if (req.method !== 'GET') return reply(res, 405, 'GET only'), true;
        if (this.authorized(req, res)) {
          res.writeHead(204);
          res.end();
        }
        return true;
      case 'action':
        if (req.method !== 'POST') return reply(res, 405, 'POST only'), true;
        if (this.authorized(req, res)) this.serveAction(req, res);
        return true;
      case 'metrics':
        if (req.method !== 'GET') return reply(res, 405, 'GET only'), true;
        this.serveMetrics(res);
        return true;
    }
    reply(res, 404, '404 page not found');
    return true;
  }

  // registerMetrics puts the agent's Prometheus metrics (docs/fleet.md's
  // names) on registry, a prom-client Registry (default: a new one), for a
  // program that serves its own /metrics; it returns the registry. It
  // throws when prom-client cannot be loaded.
  registerMetrics(registry) {
    const client = metrics.promClient();
    if (!client) throw new Error(metrics.MISSING);
    return metrics.register(this, client, registry);
  }

  // serveMetrics answers MetricsPath: the Prometheus text exposition of
  // registerMetrics' registry, or 501 and one line without prom-client.
  serveMetrics(res) {
    if (this.metricsRegistry === undefined) {
      const client = metrics.promClient();
      this.metricsRegistry = client ? metrics.register(this, client) : null;
    }
    const reg = this.metricsRegistry;
    if (!reg) return reply(res, 501, metrics.MISSING);
    reg.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': reg.contentType });
        res.end(text);
      },
      (err) => reply(res, 500, `offtop agent: metrics: ${err.message}`),
    );
  }

  // threadCPUms is thread tid's CPU time in ms (/proc), or null.
  threadCPUms(tid) {
    return threadCPUms(tid);
  }

  authorized(req, res) {
    if (!this.o.control) {
      reply(res, 403, 'offtop agent: this program does not take control (OFFTOP_CONTROL=1, or start({control: true}))');
      return false;
    }
    const h = String(req.headers.authorization || '');
    const tok = h.startsWith('Bearer ') ? Buffer.from(h.slice(7)) : null;
    const want = Buffer.from(this.token);
    if (!tok || tok.length !== want.length || !crypto.timingSafeEqual(tok, want)) {
      reply(res, 401, 'offtop agent: no token, or a wrong one');
      return false;
    }
    return true;
  }

  serveAction(req, res) {
    const parts = [];
    let size = 0;
    let over = false;
    req.on('data', (b) => {
      size += b.length;
      if (size > MAX_BODY_BYTES) over = true;
      else parts.push(b);
    });
    req.on('end', () => {
      if (over) return reply(res, 413, 'offtop agent: body too large');
      let a;
      try {
        a = JSON.parse(Buffer.concat(parts).toString('utf8'));
        if (!a || typeof a.kind !== 'string') throw new Error('no kind');
        // A kind that takes n needs it: a missing one is not size 0.
        if (a.n === undefined && TAKES_N.has(a.kind)) throw new Error(`${a.kind} without n`);
        if (a.n === undefined) a.n = 0;
        if (typeof a.n !== 'number') throw new Error('n is not a number');
      } catch (err) {
        return reply(res, 400, `offtop agent: not an action: ${err.message}`);
      }
      try {
        this.apply(a);
      } catch (err) {
        return reply(res, err.status || 500, err.message);
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"ok":true}\n');
    });
  }

  serveStream(req, res) {
    if (this.closed || this.clients.size >= MAX_CLIENTS) {
      return reply(res, 503, 'offtop agent: too many clients, or closed');
    }
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store' });
    const c = {
      timer: null,
      send: (line) => {
        if (res.writableLength > CLIENT_BUFFER * line.length) return c.drop(); // that far behind: let it go
        if (!res.write(line) && !c.timer) {
          c.timer = setTimeout(c.drop, WRITE_TIMEOUT_MS);
          c.timer.unref();
        }
      },
      drop: () => {
        this.clients.delete(c);
        if (c.timer) clearTimeout(c.timer);
        res.destroy();
      },
    };
    res.on('drain', () => {
      if (c.timer) clearTimeout(c.timer);
      c.timer = null;
    });
    res.on('close', () => {
      this.clients.delete(c);
      if (c.timer) clearTimeout(c.timer);
    });
    this.clients.add(c);
    c.send(JSON.stringify(this.latest) + '\n');
  }

  // listen serves the agent on its own server at addr (host:port, port 0
  // picks one); resolves with the bound address. addr must be loopback
  // unless allowRemote.
  async listen(addr) {
    if (!this.o.allowRemote) checkLoopback(addr);
    const { host, port } = splitHostPort(addr);
    this.server = http.createServer((req, res) => {
      if (!this.handle(req, res)) reply(res, 404, '404 page not found');
    });
    this.server[routes.OWN] = true;
    return new Promise((resolve, reject) => {
      this.server.once('error', (err) => reject(new Error(`offtop agent: listen ${addr}: ${err.message}`)));
      this.server.listen(port, host || undefined, () => {
        this.server.unref();
        resolve(this.address());
      });
    });
  }

  // address is the bound host:port ('' before listen).
  address() {
    const a = this.server && this.server.address();
    if (!a) return '';
    return a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
  }

  removeToken() {
    if (!this.tokenFile) return;
    releaseToken(this.tokenFile);
    this.tokenFile = '';
  }

  // close stops sampling and serving, ends every stream and removes the
  // token file; the pool stays the program's. Safe twice.
  close() {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    clearTimeout(this.timer);
    this.mach.close();
    this.probe.stop();
    this.eld.disable();
    if (this.serving && routes.serving() === this.serving) routes.serve(null);
    for (const c of [...this.clients]) c.drop();
    this.removeToken();
    process.removeListener('exit', this.onExit);
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeListener(sig, this.onSignal);
    if (globalThis[Symbol.for('offtop.agent')] === this) delete globalThis[Symbol.for('offtop.agent')];
    if (!this.server) return Promise.resolve();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

function util(now, before) {
  const active = now.active - before.active;
  const idle = now.idle - before.idle;
  return active + idle > 0 ? active / (active + idle) : 0;
}

function clamp01(v) {
  return Math.min(Math.max(v, 0), 1);
}

function reply(res, status, msg) {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(msg + '\n');
}

// wrapPiscina counts the tasks of piscina pool p (its run, wrapped) and
// reads its own figures: threads, queue size, utilization, and its wait
// and run time histograms.
function wrapPiscina(p, agent) {
  const counts = { submitted: 0, completed: 0, failed: 0 };
  const run = p.run.bind(p);
  p.run = (...args) => {
    const t0 = performance.now();
    counts.submitted++;
    return run(...args).then(
      (v) => {
        counts.completed++;
        agent.task.record((performance.now() - t0) * 1e6);
        return v;
      },
      (err) => {
        counts.failed++;
        throw err;
      },
    );
  };
  const labels = new Map();
  return {
    p,
    stats() {
      const outstanding = counts.submitted - counts.completed - counts.failed;
      const queued = Math.min(Math.max(Number(p.queueSize) || 0, 0), outstanding);
      return {
        size: p.threads.length,
        queued,
        ...counts,
        running: outstanding - queued,
        workers: p.threads.map((w, i) => {
          if (!labels.has(w)) labels.set(w, labels.size);
          let busyMs = 0;
          try {
            busyMs = w.performance.eventLoopUtilization().active;
          } catch {}
          return { slot: labels.get(w), busyMs, tid: null, retiring: false };
        }),
      };
    },
    extra() {
      const e = { piscina_threads: p.threads.length, piscina_queue_size: Number(p.queueSize) || 0 };
      if (typeof p.utilization === 'number') e.piscina_utilization = round3(p.utilization);
      for (const [k, h] of [['wait', p.waitTime], ['run', p.runTime]]) {
        if (h && typeof h === 'object') {
          e[`piscina_${k}_p50_ms`] = typeof h.p50 === 'number' ? round3(h.p50) : null;
          e[`piscina_${k}_p99_ms`] = typeof h.p99 === 'number' ? round3(h.p99) : null;
          e[`piscina_${k}_max_ms`] = typeof h.max === 'number' ? round3(h.max) : null;
        }
      }
      return e;
    },
  };
}

// start makes the agent (one per process: a second start returns the
// first) and, with o.listen, serves it there. Resolves with the agent.
async function start(o = {}) {
  const key = Symbol.for('offtop.agent');
  if (globalThis[key]) return globalThis[key];
  if (o.listen && !o.allowRemote) checkLoopback(o.listen);
  const a = new Agent(o);
  globalThis[key] = a;
  if (o.listen) {
    try {
      await a.listen(o.listen);
    } catch (err) {
      await a.close();
      throw err;
    }
  }
  return a;
}

module.exports = { Agent, start, checkLoopback, isLoopback, libuvThreads, DEFAULT_PATH, SCHEMA, MAX_SERVED };
