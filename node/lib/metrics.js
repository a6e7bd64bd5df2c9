'use strict';
// Prometheus exposition of the agent's figures through prom-client, an
// optional peer dependency: the program's own copy when it has one (one
// registry in the process), else one installed beside the agent. Names,
// types, units and help are the Go agent's (docs/fleet.md), read from the
// agent's engines at each scrape; nothing is kept here. Classic buckets
// only: prom-client writes no native histograms.
const path = require('node:path');
const { highest } = require('./hist');

// BUCKETS_S are the classic buckets' upper bounds in seconds (a +Inf
// bucket follows): 1-2-5 steps from 10 us to 10 s, as the Go agent's. A
// value counts at or below a bound when its HDR bucket's highest value is.
const BUCKETS_S = [1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10];
const BUCKETS_NS = BUCKETS_S.map((s) => Math.round(s * 1e9));

const MISSING = 'offtop agent: prom-client is not installed (npm install prom-client in the program or beside the agent)';

// promClient is the prom-client module the program can load: the one
// beside the agent, else the one its main module or working directory
// resolves; null when there is none.
function promClient() {
  const from = [__dirname, require.main && require.main.filename && path.dirname(require.main.filename), process.cwd()];
  for (const dir of from) {
    if (!dir) continue;
    try {
      return require(require.resolve('prom-client', { paths: [dir] }));
    } catch {}
  }
  return null;
}

// histogramValues is counts (a hist.js Counts of ns) as prom-client's
// histogram values in seconds: cumulative buckets, _sum (each HDR bucket
// at its middle) and _count.
function histogramValues(name, counts) {
  const cum = new Array(BUCKETS_S.length).fill(0);
  let sum = 0;
  const n = counts.n;
  if (n > 0) {
    for (let i = counts.min; i <= counts.max; i++) {
      const c = counts.c[i];
      if (c === 0) continue;
      const to = highest(i);
      const from = i === 0 ? 0 : highest(i - 1) + 1;
      sum += (c * (from + to + 1)) / 2 / 1e9;
      for (let j = BUCKETS_S.length - 1; j >= 0 && to <= BUCKETS_NS[j]; j--) cum[j] += c;
    }
  }
  const values = BUCKETS_S.map((le, j) => ({ metricName: `${name}_bucket`, labels: { le }, value: cum[j] }));
  values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf' }, value: n });
  values.push({ metricName: `${name}_sum`, labels: {}, value: sum });
  values.push({ metricName: `${name}_count`, labels: {}, value: n });
  return values;
}

// Exported is one metric family as prom-client's Registry reads it: its
// values come from read() at each scrape.
class Exported {
  constructor(name, help, type, read) {
    this.name = `offtop_${name}`;
    this.help = help;
    this.type = type;
    this.read = read;
    this.aggregator = 'sum';
  }
  async get() {
    return { name: this.name, help: this.help, type: this.type, values: this.read(this.name), aggregator: this.aggregator };
  }
  reset() {}
}

// families are the agent's metric families: the Loop lateness histograms
// always; with a pool, its task histograms, sizes, counts and per-worker
// time (a `worker` label, the slot, on those alone). Counters count since
// the pool (or the worker) started, histograms since the last reset.
function families(agent) {
  const pool = () => {
    const p = agent.pool ? agent.pool.stats() : agent.piscina ? agent.piscina.stats() : null;
    return p;
  };
  const one = (f) => () => {
    const p = pool();
    return p ? [{ labels: {}, value: f(p) }] : [];
  };
  const perWorker = (f) => () => {
    const p = pool();
    if (!p) return [];
    const out = [];
    for (const w of p.workers) {
      const v = f(w);
      if (v !== null) out.push({ labels: { worker: String(w.slot) }, value: v });
    }
    return out;
  };
  const hist = (counts) => (name) => histogramValues(name, counts());
  const taskHist = (rec) => (name) => (pool() ? histogramValues(name, rec().total) : []);
  return [
    new Exported('loop_lateness_seconds', "How late the Loop probe ran on the program's loop, corrected for coordinated omission, since the last reset.", 'histogram', hist(() => agent.probe.corr.total)),
    new Exported('loop_lateness_raw_seconds', "How late the Loop probe ran on the program's loop, samples as taken, since the last reset.", 'histogram', hist(() => agent.probe.raw.total)),
    new Exported('pool_task_wait_seconds', "Pool tasks' queue wait, submit to start, since the last reset.", 'histogram', taskHist(() => agent.taskWait)),
    new Exported('pool_task_run_seconds', "Pool tasks' run time, start to end, since the last reset.", 'histogram', taskHist(() => agent.taskRun)),
    new Exported('pool_workers', "The pool's size: the number of workers last set.", 'gauge', one((p) => p.size)),
    new Exported('pool_queue_depth', "Tasks waiting in the pool's queue.", 'gauge', one((p) => p.queued)),
    new Exported('pool_tasks_running', 'Tasks running on the pool now.', 'gauge', one((p) => p.running)),
    new Exported('pool_tasks_submitted_total', 'Tasks submitted to the pool.', 'counter', one((p) => p.submitted)),
    new Exported('pool_tasks_completed_total', 'Tasks that completed.', 'counter', one((p) => p.completed)),
    new Exported('pool_tasks_failed_total', 'Tasks that failed: threw, rejected, their worker exited, or dropped by close.', 'counter', one((p) => p.failed)),
    new Exported('pool_tasks_timed_out_total', 'Tasks that ran past their timeout (a Node pool has none: 0).', 'counter', one(() => 0)),
    new Exported('pool_tasks_canceled_total', 'Tasks canceled while they waited (a Node pool has none: 0).', 'counter', one(() => 0)),
    new Exported('pool_tasks_rejected_total', 'Submits refused because the queue was full (a Node pool has no bound: 0).', 'counter', one(() => 0)),
    new Exported('pool_worker_busy_seconds_total', 'Wall time the worker spent on tasks since it started; rate() is its busy share.', 'counter', perWorker((w) => w.busyMs / 1e3)),
    new Exported('pool_worker_oncpu_seconds_total', "The worker thread's CPU time since it started (/proc); rate() is its on-CPU share.", 'counter', perWorker((w) => {
      const ms = agent.threadCPUms(w.tid);
      return ms === null ? null : ms / 1e3;
    })),
  ];
}

// register puts the agent's families on registry (prom-client's Registry;
// default: a new one) and returns it.
function register(agent, client, registry) {
  const reg = registry || new client.Registry();
  for (const f of families(agent)) reg.registerMetric(f);
  return reg;
}

module.exports = { promClient, register, histogramValues, BUCKETS_S, MISSING };
