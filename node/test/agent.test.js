'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Agent, libuvThreads } = require('../lib/agent');
const { Pool } = require('../lib/pool');
const { request, lines, lineWhere, sleep, balanced } = require('../testdata/helpers');

const ECHO = path.join(__dirname, '..', 'testdata', 'echo.js');

async function agentWithPool(t, opts = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offtop-node-test-'));
  const a = new Agent({ control: true, tokenDir: dir, intervalMs: 50, log: () => {}, ...opts });
  const addr = await a.listen('127.0.0.1:0');
  const pool = a.watch(new Pool({ filename: ECHO, size: 0, watch: false }));
  t.after(async () => {
    await a.close();
    await pool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const token = a.tokenFile ? fs.readFileSync(a.tokenFile, 'utf8').trim() : '';
  return { a, addr, pool, token, dir };
}

test('info names the agent, its schema and the 0600 token file', async (t) => {
  const { a, addr, dir } = await agentWithPool(t);
  const r = await request(addr, 'GET', '');
  assert.equal(r.status, 200);
  const info = JSON.parse(r.body);
  assert.equal(info.agent, 'offtop');
  assert.equal(info.schema, 1);
  assert.equal(info.pid, process.pid);
  assert.equal(info.control, true);
  assert.equal(info.interval_ms, 50);
  assert.equal(info.token_file, undefined, 'info names no file: attach finds it itself');
  const tokenFile = a.tokenFile;
  assert.equal(path.dirname(tokenFile), dir);
  const start = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[19];
  assert.equal(info.start_ticks, Number(start));
  assert.equal(path.basename(tokenFile), `offtop-agent-${process.pid}-${start}.token`);
  assert.match(fs.readFileSync(tokenFile, 'utf8'), /^[0-9a-f]{64}\n$/);
  assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600);
  await a.close();
  assert.equal(fs.existsSync(tokenFile), false, 'close removes the token file');
});

// Before making its file the agent removes the user's stale ones: a
// process not running, or this pid started at another time.
test('stale token files are removed, others kept', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offtop-node-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const start = Number(fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[19]);
  const names = {
    gone: 'offtop-agent-999999999-5.token', // no such pid
    restarted: `offtop-agent-${process.pid}-${start + 1}.token`,
    parent: `offtop-agent-${process.ppid}-${fs.readFileSync(`/proc/${process.ppid}/stat`, 'utf8').split(') ')[1].split(' ')[19]}.token`,
    other: 'notes.token',
  };
  for (const n of Object.values(names)) fs.writeFileSync(path.join(dir, n), 'x\n', { mode: 0o600 });
  const a = new Agent({ control: true, tokenDir: dir, log: () => {} });
  const left = fs.readdirSync(dir).sort();
  const mine = path.basename(a.tokenFile);
  await a.close();
  assert.deepEqual(left, [names.other, mine, names.parent].sort());
});

test('no token or a wrong one: 401 and nothing changes', async (t) => {
  const { addr, pool, token } = await agentWithPool(t);
  for (const tok of [undefined, '', 'x', token.slice(1), token + '0']) {
    const r = await request(addr, 'POST', 'action', { token: tok, body: { kind: 'set_workers', n: 3 } });
    assert.equal(r.status, 401, `token ${JSON.stringify(tok)}: ${r.body}`);
    assert.equal((await request(addr, 'GET', 'control', { token: tok })).status, 401);
  }
  assert.equal(pool.size, 0);
  assert.equal((await request(addr, 'GET', 'control', { token })).status, 204);
  const ok = await request(addr, 'POST', 'action', { token, body: { kind: 'set_workers', n: 3 } });
  assert.equal(ok.status, 200, ok.body);
  assert.equal(pool.size, 3);
});

test('bad actions: 400, 413, 422, each one line', async (t) => {
  const { addr, pool, token } = await agentWithPool(t);
  const cases = [
    [{ kind: 'set_workers', n: 257 }, 422],
    [{ kind: 'set_workers', n: -1 }, 422],
    [{ kind: 'add_gomaxprocs', n: 1 }, 422],
    [{ n: 1 }, 400],
    [{ kind: 'set_workers', n: 'x'.repeat(5000) }, 413],
  ];
  for (const [body, status] of cases) {
    const r = await request(addr, 'POST', 'action', { token, body });
    assert.equal(r.status, status, `${JSON.stringify(body).slice(0, 60)}: ${r.body}`);
    assert.equal(r.body.trim().split('\n').length, 1);
  }
  assert.equal(pool.size, 0);
});

test('an action that takes n without it: 400, the pool untouched', async (t) => {
  const { addr, pool, token } = await agentWithPool(t);
  let r = await request(addr, 'POST', 'action', { token, body: { kind: 'set_workers', n: 2 } });
  assert.equal(r.status, 200, r.body);
  r = await request(addr, 'POST', 'action', { token, body: { kind: 'set_workers' } });
  assert.equal(r.status, 400, r.body);
  assert.match(r.body, /set_workers without n/);
  assert.equal(pool.size, 2);
  r = await request(addr, 'POST', 'action', { token, body: { kind: 'reset' } });
  assert.equal(r.status, 200, r.body);
});

test('without control: 403', async (t) => {
  const { addr, pool } = await agentWithPool(t, { control: false });
  const r = await request(addr, 'POST', 'action', { token: 'x', body: { kind: 'set_workers', n: 2 } });
  assert.equal(r.status, 403);
  assert.equal(pool.size, 0);
});

test('a non-loopback bind is refused unless asked', async () => {
  const a = new Agent({ log: () => {} });
  try {
    await assert.rejects(a.listen('0.0.0.0:0'), /not loopback/);
    await assert.rejects(a.listen(':0'), /not loopback/);
    await assert.rejects(a.listen('10.1.2.3:0'), /not loopback/);
  } finally {
    await a.close();
  }
});

// Resize 0 -> 2 -> 1 through the action endpoint while tasks stream in
// (8 queued at least) (both workers busy at the shrink, one of
// them retiring with its task): every task settles once, the counts add
// up at every sample, and the final counts are the tasks submitted.
test('counts hold across resize 0 -> 2 -> 1', async (t) => {
  const { a, addr, pool, token } = await agentWithPool(t);
  const settled = new Map();
  let n = 0;
  let stop = false;
  t.after(() => (stop = true));
  const feeder = (async () => {
    while (!stop && !pool.closed) {
      while (pool.queued < 8 && !pool.closed) {
        const id = n++;
        pool.run({ id, ms: 10, fail: id % 17 === 0 }).then(
          (v) => settled.set(id, (settled.get(id) || 0) + 1) && assert.equal(v.id, id),
          () => settled.set(id, (settled.get(id) || 0) + 1),
        );
      }
      await sleep(2);
    }
  })();
  const seen = [];
  const reader = lines(addr, 40).then((ls) => seen.push(...ls));
  const until = async (ok) => {
    for (const end = performance.now() + 20000; !ok() && performance.now() < end; ) await sleep(5);
    return ok();
  };
  for (const size of [2, 1]) {
    await sleep(300);
    if (size === 1) assert.ok(await until(() => pool.workers.length === 2 && pool.workers.every((w) => w.task)), 'both workers busy at the shrink');
    const r = await request(addr, 'POST', 'action', { token, body: { kind: 'set_workers', n: size } });
    assert.equal(r.status, 200, r.body);
  }
  await sleep(300);
  stop = true;
  await feeder;
  await reader;
  const deadline = performance.now() + 30000;
  while (pool.counts.running + pool.queued > 0 && performance.now() < deadline) await sleep(10);
  assert.equal(pool.counts.running + pool.queued, 0, 'tasks left running or queued 30 s after the last');
  for (const s of seen) assert.ok(balanced(s), `unbalanced: ${JSON.stringify(s).slice(0, 200)}`);
  assert.deepEqual(new Set(seen.map((s) => s.workers)), new Set([0, 2, 1]));
  assert.equal(settled.size, n, 'every task settled');
  for (const [id, k] of settled) assert.equal(k, 1, `task ${id} settled ${k} times`);
  const c = pool.counts;
  assert.equal(c.submitted, n);
  assert.equal(c.completed + c.failed, n);
  assert.ok(c.failed > 0);
  const last = a.sample(a.reading());
  assert.ok(balanced(last));
  assert.deepEqual(last.sizes.map((r) => r.workers), [0, 1, 2]);
});

// A worker whose thread exits fails its task and is replaced; the pool
// goes on at its size.
test('a worker that dies fails its task and is replaced', async (t) => {
  const { pool } = await agentWithPool(t);
  pool.resize(1);
  await assert.rejects(pool.run({ exit: true }), /exited/);
  assert.deepEqual(await pool.run({ id: 7 }), { id: 7 });
  assert.equal(pool.workers.length, 1);
  assert.deepEqual(pool.counts, { submitted: 2, completed: 1, failed: 1, running: 0 });
});

// The pool's workers' ELU is named as the meters name them, by place in
// slot order: after 1 -> 3 -> 1 -> 2 the slots are 0 and 3, and their
// ELU is elu_w0 and elu_w1.
test('elu_wN numbers the workers by place, as the meters do', async (t) => {
  const { addr, pool } = await agentWithPool(t);
  for (const n of [1, 3, 1, 2]) pool.resize(n);
  const names = (l) => Object.keys(l.extra).filter((k) => /^elu_w\d+$/.test(k) && typeof l.extra[k] === 'number').sort();
  const line = await lineWhere(addr, (l) => l.worker_slots.join() === '0,3' && names(l).length === 2); // both online
  assert.deepEqual(names(line), ['elu_w0', 'elu_w1']);
  assert.equal(typeof line.extra.elu_w1_total, 'number');
});

// The view names Node's figures by gomaxprocs_source; libuv_threads is
// the threadpool's size as libuv reads UV_THREADPOOL_SIZE.
test('the stream says it is Node, and libuv threadpool size', async (t) => {
  const { addr } = await agentWithPool(t);
  const [line] = await lines(addr, 1);
  assert.equal(line.gomaxprocs_source, 'node');
  assert.equal(line.extra.libuv_threads, libuvThreads(process.env.UV_THREADPOOL_SIZE));
  for (const [v, want] of [[undefined, 4], ['8', 8], ['0', 1], ['', 1], ['x', 1], ['2000', 1024], ['-1', 1024], [' 16', 16]]) {
    assert.equal(libuvThreads(v), want, `UV_THREADPOOL_SIZE ${JSON.stringify(v)}`);
  }
});
