'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { spawnSync } = require('node:child_process');
const { busy } = require('../testdata/helpers');

const PRELOAD = path.join(__dirname, '..', 'preload.js');
const ELU = path.join(__dirname, '..', 'testdata', 'elu.js');

// docs/json-lines.md's required fields (session.RequiredJSONFields).
const REQUIRED = ['schema', 't_s', 'scenario', 'workers', 'gomaxprocs', 'num_cpu', 'cpu_limit', 'suggested_workers',
  'queue_depth', 'submitted', 'completed', 'failed', 'running', 'throughput_per_s',
  'worker_busy', 'worker_oncpu', 'cpu_percent', 'cpu_seconds', 'rss_bytes', 'goroutines',
  'probe', 'probe_raw', 'probe_total', 'sched', 'task', 'extra', 'sizes'];

function runELU(seconds) {
  const r = spawnSync(process.execPath, ['--require', PRELOAD, ELU, String(seconds)], {
    env: { ...process.env, OFFTOP_LISTEN: '127.0.0.1:0' }, encoding: 'utf8', timeout: 30000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('the preload finds the workers the program makes; every required field', () => {
  const { idle, line } = runELU(1);
  for (const f of REQUIRED) assert.ok(f in line, `no ${f}`);
  assert.equal(line.scenario, 'elu.js');
  assert.ok(`elu_${idle}` in line.extra && `elu_${idle}_total` in line.extra, `no ELU of ${idle}: ${Object.keys(line.extra)}`);
  for (const k of ['elu_w0', 'elu_w1', 'elu_main', 'elu_main_total', 'eld_p99_ms', 'heap_used_bytes', 'wall_s']) {
    assert.equal(typeof line.extra[k], 'number', k);
  }
  assert.equal(line.goroutines, 4, 'threads: main, 2 pool workers, the idle one');
  assert.equal(line.workers, 2);
});

// Timing: two workers running back-to-back 5 ms CPU tasks read 0.9 or
// more each, the idle worker under 0.05 (the last interval's ELU).
test('per-worker utilization: busy >= 0.9, idle < 0.05', (t) => {
  const why = busy();
  if (why) return t.skip(why);
  const { idle, line } = runELU(2);
  const e = line.extra;
  t.diagnostic(`elu_w0 ${e.elu_w0}, elu_w1 ${e.elu_w1}, elu_${idle} ${e[`elu_${idle}`]}`);
  const late = busy();
  if (late) return t.skip(late + ' (during the run)');
  assert.ok(e.elu_w0 >= 0.9 && e.elu_w1 >= 0.9, `busy workers ${e.elu_w0}, ${e.elu_w1}`);
  assert.ok(e[`elu_${idle}`] < 0.05, `idle worker ${e[`elu_${idle}`]}`);
});

test('a non-loopback OFFTOP_LISTEN: one line, exit 2, the program not run', () => {
  const r = spawnSync(process.execPath, ['--require', PRELOAD, '-e', 'console.log("ran")'], {
    env: { ...process.env, OFFTOP_LISTEN: '0.0.0.0:7070' }, encoding: 'utf8', timeout: 30000,
  });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^offtop agent: OFFTOP_LISTEN: address "0\.0\.0\.0:7070" is not loopback[^\n]*\n$/);
});

// A child the program forks inherits --require: it starts no agent (the
// parent's address and token stay the parent's), and runs.
test('a forked child starts no agent of its own', () => {
  const src = `
    const { fork } = require('node:child_process');
    const has = () => !!globalThis[Symbol.for('offtop.agent')];
    if (process.argv[2] === 'child') { process.send(has()); }
    else fork(process.argv[1], ['child']).on('message', (c) => { console.log(JSON.stringify({ parent: has(), child: c })); process.exit(0); });
  `;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offtop-node-test-'));
  const script = path.join(dir, 'forks.js');
  fs.writeFileSync(script, src);
  const r = spawnSync(process.execPath, ['--require', PRELOAD, script], {
    env: { ...process.env, OFFTOP_LISTEN: '127.0.0.1:0', OFFTOP_AGENT_PID: '' }, encoding: 'utf8', timeout: 30000,
  });
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { parent: true, child: false });
  assert.equal(r.stderr.match(/offtop agent: serving/g).length, 1, r.stderr);
});

test('a bad OFFTOP_HTTP: one line, exit 2, the program not run', () => {
  const r = spawnSync(process.execPath, ['--require', PRELOAD, '-e', 'console.log("ran")'], {
    env: { ...process.env, OFFTOP_LISTEN: '127.0.0.1:0', OFFTOP_HTTP: 'off' }, encoding: 'utf8', timeout: 30000,
  });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'offtop agent: OFFTOP_HTTP="off": want 0 (leave the HTTP servers alone) or 1 (the default)\n');
});
