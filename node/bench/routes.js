#!/usr/bin/env node
'use strict';
// What recording the program's HTTP routes costs a Node server per
// request: the same node:http server (GET /ping answers "pong", 10 routes
// /r0../r9 alike) run without the agent, with it preloaded and
// OFFTOP_HTTP=0 (its servers left alone), and with it recording routes;
// each is sent N requests over 4 keep-alive connections from this
// process, the three interleaved ROUNDS times. Then, in this process, the
// wrapped emit alone beside the bare one: a server's 'request' emitted
// with a request and response of its own and the response's 'finish',
// ns per request (the median of ROUNDS runs of N). Prints BENCHMARKS.md's
// part for it: the server's CPU time per request (/proc, 10 ms ticks; the
// median of the rounds), its RSS at the end, the ns per request in
// process, the load average.
//   node node/bench/routes.js [N [ROUNDS]]   (N 1000..1000000, default 20000; ROUNDS 1..20, default 3)
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const [n, rounds] = [Number(process.argv[2] || 20000), Number(process.argv[3] || 3)];
if (!Number.isInteger(n) || n < 1000 || n > 1e6 || !Number.isInteger(rounds) || rounds < 1 || rounds > 20) {
  process.stderr.write(`routes.js: N ${JSON.stringify(process.argv[2])}, ROUNDS ${JSON.stringify(process.argv[3])}: want whole numbers, N in 1000..1000000, ROUNDS in 1..20\n`);
  process.exit(2);
}
const PRELOAD = path.join(__dirname, '..', 'preload.js');
const SERVER = `require('node:http').createServer((req, res) => res.end('pong\\n'))
  .listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });`;
const TICK_MS = 10;
const MODES = [
  { name: 'no agent', args: [], env: {} },
  { name: 'agent, OFFTOP_HTTP=0', args: ['--require', PRELOAD], env: { OFFTOP_HTTP: '0' } },
  { name: 'agent recording routes', args: ['--require', PRELOAD], env: {} },
];

function cpuMs(pid) {
  const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}
function rssBytes(pid) {
  return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
}

function start(mode) {
  const env = { ...process.env, OFFTOP_LISTEN: '127.0.0.1:0', ...mode.env };
  const child = spawn(process.execPath, [...mode.args, '-e', SERVER], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`routes.js: the ${mode.name} server exited, status ${code}`)));
    child.stdout.once('data', (b) => resolve({ child, port: Number(String(b).trim()) }));
  });
}

// send makes n GETs to port over 4 keep-alive connections.
async function send(port, n) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  let next = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      const i = next++;
      http
        .get({ host: '127.0.0.1', port, path: `/r${i % 10}?i=${i}`, agent }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  await Promise.all(
    [0, 1, 2, 3].map(async () => {
      while (next < n) await one();
    }),
  );
  agent.destroy();
}

async function run(mode) {
  const { child, port } = await start(mode);
  await send(port, Math.min(2000, n)); // warm-up
  const before = cpuMs(child.pid);
  const t0 = performance.now();
  await send(port, n);
  const cpu = cpuMs(child.pid) - before;
  const wall = performance.now() - t0;
  const rss = rssBytes(child.pid);
  child.removeAllListeners('exit');
  child.kill();
  return { cpuUsPerReq: (cpu * 1e3) / n, wallUsPerReq: (wall * 1e3) / n, rss };
}

// micro is the ns per request of emitting 'request' on an http.Server with
// one listener and then the response's 'finish', with the agent's routes
// recording when on (10 routes, as the servers above).
function micro(on) {
  const { EventEmitter } = require('node:events');
  const routes = require('../lib/routes');
  const table = new routes.Routes(5000);
  routes.serve(on ? { routes: table, prefix: '/debug/offtop/', handle: () => {} } : null);
  const srv = new http.Server();
  srv.on('request', (req, res) => res.emit('finish'));
  const reqs = Array.from({ length: 10 }, (_, i) => ({ url: `/r${i}?i=${i}` }));
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const res = new EventEmitter();
    res.statusCode = 200;
    srv.emit('request', reqs[i % 10], res);
  }
  const ns = Number(process.hrtime.bigint() - t0) / n;
  routes.serve(null);
  return ns;
}

function median(vs) {
  const s = [...vs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main() {
  const load0 = os.loadavg().map((v) => v.toFixed(2)).join(' ');
  const got = MODES.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < MODES.length; i++) got[i].push(await run(MODES[i]));
  }
  const bare = [];
  const rec = [];
  for (let r = 0; r < rounds; r++) {
    bare.push(micro(false));
    rec.push(micro(true));
  }
  const load1 = os.loadavg().map((v) => v.toFixed(2)).join(' ');
  const cpu = os.cpus();
  process.stdout.write(`Node ${process.version}, ${cpu.length} CPUs (${cpu[0] ? cpu[0].model : '?'}); load average at the start ${load0}, at the end ${load1}; ${n} requests a run, ${rounds} rounds.\n\n`);
  process.stdout.write('| server | CPU us per request (median) | each round | wall us per request (median) | RSS at the end |\n|---|---|---|---|---|\n');
  const base = median(got[0].map((g) => g.cpuUsPerReq));
  MODES.forEach((m, i) => {
    const c = median(got[i].map((g) => g.cpuUsPerReq));
    const each = got[i].map((g) => g.cpuUsPerReq.toFixed(1)).join(', ');
    const d = i === 0 ? '' : ` (${c >= base ? '+' : ''}${(c - base).toFixed(1)})`;
    const rss = (got[i][got[i].length - 1].rss / 2 ** 20).toFixed(1);
    process.stdout.write(`| ${m.name} | ${c.toFixed(1)}${d} | ${each} | ${median(got[i].map((g) => g.wallUsPerReq)).toFixed(1)} | ${rss} MiB |\n`);
  });
  const [b, w] = [median(bare), median(rec)];
  process.stdout.write(`\nIn process ('request' and 'finish' emitted, no socket): bare ${b.toFixed(0)} ns per request, routes recorded ${w.toFixed(0)} ns (+${(w - b).toFixed(0)} ns; rounds ${rec.map((v) => v.toFixed(0)).join(', ')}).\n`);
  process.stdout.write(`\nCommand: \`node node/bench/routes.js ${n} ${rounds}\`.\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
