'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Agent } = require('../lib/agent');
const { request, balanced } = require('../testdata/helpers');

let Piscina = null;
try {
  Piscina = require('piscina'); // not a dependency: npm install piscina (or NODE_PATH) to run this test
} catch {}

// A piscina pool handed to the agent: its threads and counts shown, its
// own figures in extra, and a resize refused saying why.
test('a piscina pool is shown and not resized', { skip: !Piscina && 'piscina not installed (npm install piscina in node/, or NODE_PATH)' }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offtop-node-test-'));
  const a = new Agent({ control: true, tokenDir: dir, intervalMs: 50, log: () => {} });
  const addr = await a.listen('127.0.0.1:0');
  const p = new Piscina({ filename: path.join(__dirname, '..', 'testdata', 'echo.js'), minThreads: 2, maxThreads: 2 });
  t.after(async () => {
    await a.close();
    await p.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  a.watch(p);
  const before = a.sample(a.reading());
  await Promise.all(Array.from({ length: 20 }, (_, i) => p.run({ i, ms: 2 })));
  const s = a.sample(a.reading());
  assert.ok(balanced(before) && balanced(s));
  assert.equal(s.submitted, 20);
  assert.equal(s.completed, 20);
  assert.equal(s.workers, p.threads.length);
  assert.equal(s.task.count, 20);
  for (const k of ['piscina_threads', 'piscina_queue_size', 'piscina_utilization', 'piscina_wait_p99_ms', 'piscina_run_p99_ms']) {
    assert.equal(typeof s.extra[k], 'number', k);
  }
  const token = fs.readFileSync(a.tokenFile, 'utf8').trim();
  const r = await request(addr, 'POST', 'action', { token, body: { kind: 'set_workers', n: 4 } });
  assert.equal(r.status, 422);
  assert.match(r.body, /piscina .*minThreads and maxThreads are fixed/);
  assert.equal(p.threads.length, s.workers);
});
