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
const { busy, request, lineWhere } = require('../testdata/helpers');

let autocannon = null;
try {
  autocannon = require('autocannon');
} catch {}

const PRELOAD = path.join(__dirname, '..', 'preload.js');
const SERVER = path.join(__dirname, '..', 'examples', 'server.js');

// p99 is the agent's percentile rule (docs/json-lines.md): the value at
// rank round(0.99 n), halves up.
function p99(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.max(1, Math.floor(0.99 * s.length + 0.5)) - 1] : null;
}

// mix runs seed 001's mix against base for seconds: closed-loop
// autocannon clients of /fast (2) and /slow (1) and one of /ping. It
// resolves with the latency in ms of each /ping sent while /fast and /slow
// ran, timed by autocannon (write to response, unrounded) and kept to the
// last, which waits out the task in progress when they stop; the /ping
// client is stopped once done() resolves after that.
async function mix(base, seconds, done) {
  const opts = { duration: seconds, pipelining: 1 };
  const pings = [];
  let stop = Infinity;
  let last = null;
  const ping = autocannon({ ...opts, duration: seconds + 120, url: base + '/ping', connections: 1 });
  ping.on('response', (client, status, bytes, ms) => {
    const sent = performance.now() - ms;
    if (sent < stop) pings.push(ms);
    else if (last) last();
  });
  const ended = new Promise((resolve) => ping.on('done', resolve));
  await Promise.all([
    autocannon({ ...opts, url: base + '/fast', connections: 2 }),
    autocannon({ ...opts, url: base + '/slow', connections: 1, timeout: 30 }),
  ]);
  stop = performance.now();
  await Promise.all([new Promise((resolve) => (last = resolve)), done()]);
  ping.stop();
  await ended;
  return pings;
}

// The example server at pool 0 under autocannon: the agent's Loop probe
// p99 at that size within 10% of autocannon's /ping p99; resized live to
// 1 through the agent's action endpoint (as offtop attach does), /ping's
// p99 at least 10x lower. The main thread polls I/O between any two
// inline tasks, so each closed-loop /ping waits out at most the one task
// in progress: its p99 and the corrected probe's are both the longest
// tasks' length, compared over the same span.
test('server: the probe reads /ping at pool 0, pool 1 is 10x better', {
  skip: !autocannon && 'autocannon not installed (npm install autocannon in node/, or NODE_PATH)',
  timeout: 240000,
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
  const act = async (kind, n) => assert.equal((await request(agentAddr, 'POST', 'action', { token, body: { kind, n } })).status, 200);
  const idle = () => lineWhere(agentAddr, (s) => s.running + s.queue_depth === 0);
  // at n workers: 2 s of the mix to warm up, discarded; reset with the
  // queue empty; 10 s of the mix. Both figures span the same requests:
  // the probe since the reset, read at the first idle line once the mix
  // stopped, and the /ping requests sent from the reset to the stop.
  const at = async (n) => {
    await act('set_workers', n);
    await mix(base, 2, idle);
    await act('reset', 0);
    let probe;
    const pings = await mix(base, 10, async () => (probe = (await idle()).probe_total));
    return { ping: p99(pings), n: pings.length, probe };
  };
  const p0 = await at(0);
  const p1 = await at(1);
  t.diagnostic(`pool 0: /ping p99 ${p0.ping.toFixed(3)} ms (autocannon, ${p0.n} pings), probe p99 ${p0.probe.p99_ms} ms (${p0.probe.count} samples); pool 1: /ping p99 ${p1.ping.toFixed(3)} ms (${p1.n} pings), probe p99 ${p1.probe.p99_ms} ms`);
  const late = busy();
  if (late) return t.skip(late + ' (during the run)');
  assert.ok(p0.n >= 20, `pool 0: only ${p0.n} pings`);
  assert.ok(Math.abs(p0.probe.p99_ms - p0.ping) <= 0.1 * p0.ping, `pool 0: probe p99 ${p0.probe.p99_ms} ms, /ping p99 ${p0.ping} ms`);
  assert.ok(p1.ping * 10 <= p0.ping, `/ping p99 ${p0.ping} ms at pool 0, ${p1.ping} ms at pool 1`);
});
