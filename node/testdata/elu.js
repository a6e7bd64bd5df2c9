'use strict';
// Run with the preload: a Pool of 2 kept busy with back-to-back 5 ms CPU
// tasks, and an idle worker the program makes itself; once all three are
// up, SECONDS (2) later, prints the agent's newest line and the idle
// worker's label: the first line from then on with an ELU for all three
// (a busy machine can hold a worker's first reading back), or after 20 s
// the newest, whatever it has.
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const offtop = require('../index.js');

const seconds = Number(process.argv[2] || 2);
const idle = new Worker('setInterval(() => {}, 1000)', { eval: true });
const pool = new offtop.Pool({ filename: path.join(__dirname, 'echo.js'), size: 2 });
let stop = false;
function feed() {
  while (!stop && pool.queued < 4) pool.run({ ms: 5 }).then(feed, () => {}); // close fails the queued ones
}
let online = false;
idle.once('online', () => (online = true));
const up = setInterval(() => {
  if (!online || !pool.workers.every((w) => w.ready)) return;
  clearInterval(up);
  feed();
  setTimeout(report, seconds * 1000);
}, 10);
const started = Date.now();
function report() {
  const a = offtop.agent();
  const e = (a.latest && a.latest.extra) || {};
  const all = [e.elu_w0, e.elu_w1, e[`elu_t${idle.threadId}`]].every((v) => typeof v === 'number');
  if (!all && Date.now() - started < 20000) return setTimeout(report, 50);
  process.stdout.write(JSON.stringify({ idle: `t${idle.threadId}`, line: a.latest }) + '\n');
  stop = true;
  idle.terminate();
  pool.close();
}
