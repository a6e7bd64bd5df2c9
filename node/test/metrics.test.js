'use strict';
// The Prometheus exposition (prom-client, an optional peer dependency:
// these tests skip, saying so, where it is not installed).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { Agent } = require('../lib/agent');
const { Pool } = require('../lib/pool');
const { promClient, histogramValues } = require('../lib/metrics');
const { Counts, index } = require('../lib/hist');
const { lineWhere } = require('../testdata/helpers');

const ECHO = path.join(__dirname, '..', 'testdata', 'echo.js');
const FLEET = path.join(__dirname, '..', '..', 'docs', 'fleet.md');
const NO_PROM = !promClient() && 'prom-client not installed (npm install prom-client in node/, or NODE_PATH)';

// documented is docs/fleet.md's metric table (the Go agent's, which its
// own test checks against a scrape): name -> {type, labels}.
function documented() {
  const out = new Map();
  for (const m of fs.readFileSync(FLEET, 'utf8').matchAll(/^\| `(offtop_[a-z_]+)` \| (\w+) \|[^|]*\|([^|]*)\|/gm)) {
    out.set(m[1], { type: m[2], labels: m[3].trim() });
  }
  return out;
}

// parse reads a text exposition: name -> {type, samples: [{name, labels, value}]}.
function parse(text) {
  const fams = new Map();
  for (const line of text.split('\n')) {
    let m;
    if ((m = /^# TYPE (\S+) (\S+)$/.exec(line))) fams.set(m[1], { type: m[2], samples: [] });
    else if ((m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line))) {
      const fam = [...fams.keys()].find((f) => m[1] === f || m[1].startsWith(f + '_'));
      const labels = Object.fromEntries([...(m[2] || '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
      fams.get(fam).samples.push({ name: m[1], labels, value: Number(m[3]) });
    }
  }
  return fams;
}

async function agentWithPool(t) {
  const a = new Agent({ intervalMs: 50, log: () => {} });
  const addr = await a.listen('127.0.0.1:0');
  const pool = a.watch(new Pool({ filename: ECHO, size: 2, watch: false }));
  t.after(async () => {
    await a.close();
    await pool.close();
  });
  return { a, addr, pool };
}

const scrape = async (addr) => {
  const res = await fetch(`http://${addr}/debug/offtop/metrics`);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};

// Every family docs/fleet.md lists for the Go agent, with its type and
// labels, and no other; promtool passes the exposition where installed.
test('metrics: the Go agent names, types and labels, promtool clean', { skip: NO_PROM }, async (t) => {
  const { addr, pool } = await agentWithPool(t);
  for (let i = 0; i < 20; i++) await pool.run({ id: i, ms: 1, fail: i % 5 === 0 }).catch(() => {});
  const { status, type, text } = await scrape(addr);
  assert.equal(status, 200);
  assert.match(type, /^text\/plain; version=0\.0\.4/);
  const fams = parse(text);
  const doc = documented();
  assert.ok(doc.size >= 15, `docs/fleet.md lists ${doc.size} metrics`);
  assert.deepEqual([...fams.keys()].sort(), [...doc.keys()].sort());
  for (const [name, d] of doc) {
    const f = fams.get(name);
    assert.equal(f.type, d.type, name);
    for (const s of f.samples) {
      const want = d.labels ? [d.labels.replace(/`/g, '')] : [];
      const got = Object.keys(s.labels).filter((k) => k !== 'le');
      assert.deepEqual(got, want, `${s.name} labels`);
    }
  }
  const v = (name) => fams.get(name).samples[0].value;
  assert.equal(v('offtop_pool_tasks_submitted_total'), 20);
  assert.equal(v('offtop_pool_tasks_failed_total'), 4);
  assert.equal(v('offtop_pool_tasks_completed_total'), 16);
  assert.equal(v('offtop_pool_workers'), 2);
  assert.equal(fams.get('offtop_pool_worker_busy_seconds_total').samples.length, 2);
  const promtool = spawnSync('promtool', ['--version']).status === 0;
  if (!promtool) return t.diagnostic('promtool not installed: the exposition not checked by it');
  execFileSync('promtool', ['check', 'metrics'], { input: text }); // throws with its findings
});

// The histograms count what the agent counts: the Loop lateness's count
// is the stream's probe_total count at the same reading, the task
// histograms the tasks run.
test('metrics: the histograms are the agent\'s', { skip: NO_PROM }, async (t) => {
  const { a, addr, pool } = await agentWithPool(t);
  for (let i = 0; i < 30; i++) await pool.run({ id: i, ms: 1 });
  await lineWhere(addr, (s) => s.probe_total.count > 20);
  a.probe.stop(); // nothing recorded from here: the line and the scrape read the same counts
  // The first line after the stop may have been read before it: take the
  // first whose count its predecessor's equals, read after the stop.
  let prev = -1;
  const line = await lineWhere(addr, (s) => {
    const same = s.probe_total.count === prev;
    prev = s.probe_total.count;
    return same;
  });
  const fams = parse((await scrape(addr)).text);
  const count = (name) => fams.get(name).samples.find((s) => s.name === name + '_count').value;
  assert.equal(count('offtop_pool_task_run_seconds'), 30);
  assert.equal(count('offtop_pool_task_wait_seconds'), 30);
  assert.equal(count('offtop_loop_lateness_seconds'), line.probe_total.count);
  assert.equal(count('offtop_loop_lateness_raw_seconds'), a.probe.raw.total.n);
  const inf = fams.get('offtop_loop_lateness_seconds').samples.find((s) => s.labels.le === '+Inf').value;
  assert.equal(inf, line.probe_total.count);
});

// A bucket counts a value when its HDR bucket's highest value is at or
// below the bound: 9.9 ms counts at 10 ms, 10.1 ms at 20 ms; buckets
// are cumulative; the sum is each HDR bucket at its middle.
test('metrics: classic buckets by the HDR bucket\'s highest value', () => {
  const c = new Counts();
  for (const ns of [9.9e6, 10.1e6, 10.1e6, 3e9]) c.add(index(ns), 1);
  const vals = histogramValues('x', c);
  const at = (le) => vals.find((v) => v.labels.le === le).value;
  assert.equal(at(0.005), 0);
  assert.equal(at(0.01), 1);
  assert.equal(at(0.02), 3);
  assert.equal(at(2), 3);
  assert.equal(at(5), 4);
  assert.equal(at('+Inf'), 4);
  const sum = vals.find((v) => v.metricName === 'x_sum').value;
  assert.ok(Math.abs(sum - (9.9e-3 + 2 * 10.1e-3 + 3)) < 0.02, `sum ${sum}`);
});

// Without prom-client the path answers 501 and one line naming the fix.
test('metrics: without prom-client, 501 and one line', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offtop-noprom-'));
  try {
    fs.cpSync(path.join(__dirname, '..', 'lib'), path.join(dir, 'lib'), { recursive: true });
    const prog = `
      const { Agent } = require(${JSON.stringify(path.join(dir, 'lib', 'agent.js'))});
      const a = new Agent({ log: () => {} });
      a.listen('127.0.0.1:0').then(async (addr) => {
        const res = await fetch('http://' + addr + '/debug/offtop/metrics');
        process.stdout.write(res.status + ' ' + (await res.text()));
        await a.close();
      });`;
    const out = execFileSync(process.execPath, ['-e', prog], { cwd: dir, env: { ...process.env, NODE_PATH: '' } }).toString();
    assert.match(out, /^501 offtop agent: prom-client is not installed \(npm install prom-client[^\n]*\)\n$/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
