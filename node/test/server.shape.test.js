'use strict';
// Timing, judged only when the machine is quiet (helpers.busy) and
// autocannon is installed (not a dependency: npm install autocannon in
// node/, or NODE_PATH).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { busy, request, lines } = require('../testdata/helpers');

let autocannon = null;
try {
  autocannon = require('autocannon');
} catch {}

const PRELOAD = path.join(__dirname, '..', 'preload.js');
const SERVER = path.join(__dirname, '..', 'examples', 'server.js');

// load runs seed 001's mix against base for seconds: closed-loop clients
// of /fast (2) and /slow (1) and one of /ping, and resolves with /ping's
// latency as autocannon measured it.
async function load(base, seconds) {
  const opts = { duration: seconds, pipelining: 1 };
  const [ping] = await Promise.all([
    autocannon({ ...opts, url: base + '/ping', connections: 1 }),
    autocannon({ ...opts, url: base + '/fast', connections: 2 }),
    autocannon({ ...opts, url: base + '/slow', connections: 1, timeout: 30 }),
  ]);
  return ping.latency;
}

// The example server at pool 0 under autocannon: the agent's Loop probe
// p99 at that size within 10% of autocannon's /ping p99; resized live to
// 1 through the agent's action endpoint (as offtop attach does), /ping's
// p99 at least 10x lower.
test('server: the probe reads /ping at pool 0, pool 1 is 10x better', {
  skip: !autocannon && 'autocannon not installed (npm install autocannon in node/, or NODE_PATH)',
}, async (t) => {
  const why = busy();
  if (why) return t.skip(why);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offtop-node-shape-'));
  const addrFile = path.join(dir, 'addr');
  const child = spawn(process.execPath, ['--require', PRELOAD, SERVER, '--workers', '0', '--listen', '127.0.0.1:0'], {
    env: { ...process.env, OFFTOP_LISTEN: '127.0.0.1:0', OFFTOP_CONTROL: '1', OFFTOP_ADDR_FILE: addrFile, XDG_RUNTIME_DIR: dir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.after(() => {
    child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  let err = '';
  const base = await new Promise((resolve, reject) => {
    child.stderr.on('data', (b) => {
      err += b;
      const m = /server: serving (http:\/\/[0-9.:]+)\/ping/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once('exit', () => reject(new Error(`the server ended: ${err}`)));
  });
  while (!fs.existsSync(addrFile)) await new Promise((r) => setTimeout(r, 20));
  const agentAddr = fs.readFileSync(addrFile, 'utf8').trim();
  const info = JSON.parse((await request(agentAddr, 'GET', '')).body);
  const token = fs.readFileSync(path.join(dir, `offtop-agent-${info.pid}-${info.start_ticks}.token`), 'utf8').trim();
  const at = async (n) => {
    assert.equal((await request(agentAddr, 'POST', 'action', { token, body: { kind: 'set_workers', n } })).status, 200);
    await request(agentAddr, 'POST', 'action', { token, body: { kind: 'reset', n: 0 } });
    const ping = await load(base, 10);
    const [s] = await lines(agentAddr, 1);
    return { ping, probe: s.probe };
  };
  const p0 = await at(0);
  const p1 = await at(1);
  t.diagnostic(`pool 0: /ping p99 ${p0.ping.p99} ms (autocannon), probe p99 ${p0.probe.p99_ms} ms; pool 1: /ping p99 ${p1.ping.p99} ms, probe p99 ${p1.probe.p99_ms} ms`);
  const late = busy();
  if (late) return t.skip(late + ' (during the run)');
  assert.ok(Math.abs(p0.probe.p99_ms - p0.ping.p99) <= 0.1 * p0.ping.p99, `pool 0: probe p99 ${p0.probe.p99_ms} ms, /ping p99 ${p0.ping.p99} ms`);
  assert.ok(p1.ping.p99 * 10 <= p0.ping.p99, `/ping p99 ${p0.ping.p99} ms at pool 0, ${p1.ping.p99} ms at pool 1`);
});
