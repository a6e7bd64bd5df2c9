#!/usr/bin/env node
'use strict';
// What the agent costs an idle Node program: three copies of the same
// idle program (a 1 s setInterval) run side by side for SECONDS (default
// 30): without the agent, with it (samples every 250 ms, no client), and
// with it and a client reading the stream (the samples encoded). Prints a
// Markdown table: CPU share (CPU time over wall, after 3 s of warm-up)
// and RSS at the end.
//   node node/bench/cost.js [SECONDS]
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const seconds = Number(process.argv[2] || 30);
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
  const env = { ...process.env, OFFTOP_LISTEN: '127.0.0.1:0', ...(addrFile ? { OFFTOP_ADDR_FILE: addrFile } : {}) };
  return spawn(process.execPath, args, { env, stdio: 'ignore' });
}

async function main() {
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
  const load = os.loadavg().map((v) => v.toFixed(2)).join(' ');
  console.log(`Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0].model}), ${seconds}s side by side, load ${load}; the client read ${lines} lines\n`);
  console.log('| program | CPU share | RSS MiB |');
  console.log('|---|---|---|');
  for (const r of runs) console.log(`| ${r.name} | ${(r.share * 100).toFixed(2)}% | ${(r.rss / 2 ** 20).toFixed(1)} |`);
}

main();
