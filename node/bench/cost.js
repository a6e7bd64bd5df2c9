#!/usr/bin/env node
'use strict';
// What the agent costs an idle Node program: three copies of the same
// idle program (a 1 s setInterval) run side by side for SECONDS (default
// 30): without the agent, with it (samples every 250 ms, no client), and
// with it and a client reading the stream (the samples encoded). Prints
// BENCHMARKS.md's part for it: CPU share (CPU time over wall, after 3 s of
// warm-up) and RSS at the end, the load average at the start and the end.
//   node node/bench/cost.js [SECONDS]   (SECONDS: a whole number, 5..3600)
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const seconds = Number(process.argv[2] || 30);
if (!Number.isInteger(seconds) || seconds < 5 || seconds > 3600) {
  process.stderr.write(`cost.js: SECONDS ${JSON.stringify(process.argv[2])}: want a whole number in 5..3600\n`);
  process.exit(2);
}
const loadavg = () => os.loadavg().map((v) => v.toFixed(2)).join(' ');
const PRELOAD = path.join(__dirname, '..', 'preload.js');
const IDLE = 'setInterval(() => {}, 1000)';
const TICK_MS = 10;

function cpuMs(pid) {
  const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}
function rssBytes(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) * 1024;
}

function start(agent, addrFile) {
  const args = agent ? ['--require', PRELOAD, '-e', IDLE] : ['-e', IDLE];
  const env = { ...process.env, OFFTOP_LISTEN: '127.0.0.1:0', OFFTOP_INTERVAL_MS: '250', ...(addrFile ? { OFFTOP_ADDR_FILE: addrFile } : {}) };
  return spawn(process.execPath, args, { env, stdio: 'ignore' });
}

async function main() {
  const loadStart = loadavg();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'offtop-cost-'));
  const addrFile = path.join(dir, 'addr');
  const runs = [
    { name: 'idle program, no agent', p: start(false) },
    { name: 'with the agent, no client', p: start(true) },
    { name: 'with the agent, a client reading the stream', p: start(true, addrFile) },
  ];
  while (!fs.existsSync(addrFile)) await new Promise((r) => setTimeout(r, 20));
  const addr = fs.readFileSync(addrFile, 'utf8').trim();
  const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), addr.slice(addr.lastIndexOf(':') + 1)];
  let lines = 0;
  const req = http.get({ host, port, path: '/debug/offtop/stream' }, (res) => res.on('data', (b) => (lines += b.toString().split('\n').length - 1)));
  req.on('error', () => {});
  await new Promise((r) => setTimeout(r, 3000));
  const t0 = performance.now();
  for (const r of runs) r.cpu0 = cpuMs(r.p.pid);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const wall = performance.now() - t0;
  for (const r of runs) {
    r.share = (cpuMs(r.p.pid) - r.cpu0) / wall;
    r.rss = rssBytes(r.p.pid);
  }
  req.destroy();
  for (const r of runs) r.p.kill();
  fs.rmSync(dir, { recursive: true, force: true });
  const lf = (n) => (Math.abs(n) < 0.05 * 2 ** 20 ? '0.0' : (n / 2 ** 20).toFixed(1));
  const out = [
    '## What the Node agent costs an idle Node program',
    '',
    'The same idle Node program (`setInterval(() => {}, 1000)`) three times side',
    'by side: without the agent, with it preloaded (`node --require',
    'node/preload.js`: the Loop probe\'s 10ms timer, monitorEventLoopDelay at',
    '10ms, a sample every 250ms) and no client, and with a client reading the',
    `stream (the samples encoded). CPU share: utime + stime over wall for ${seconds}s`,
    'from 3s after start; RSS: `VmRSS` at the end.',
    '',
    `Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0].model}); load average at the start ${loadStart}, at the end ${loadavg()}; the client read ${lines} lines.`,
    '',
    '| program | CPU share | RSS MiB |',
    '|---|---|---|',
    ...runs.map((r) => `| ${r.name} | ${(r.share * 100).toFixed(2)}% | ${lf(r.rss)} |`),
    '',
    `The agent: ${((runs[1].share - runs[0].share) * 100).toFixed(2)}% of one core and ${lf(runs[1].rss - runs[0].rss)} MiB; a client reading adds ${((runs[2].share - runs[1].share) * 100).toFixed(2)}% and ${lf(runs[2].rss - runs[1].rss)} MiB.`,
    '',
    `Command: \`node node/bench/cost.js ${seconds}\` (about ${seconds + 5} seconds; bench/run runs it, NODE_COST_S).`,
  ];
  console.log(out.join('\n'));
}

main();
