'use strict';
// Run with the preload: a Pool of 2 kept busy with back-to-back 5 ms CPU
// tasks, and an idle worker the program makes itself; after SECONDS (2)
// prints the agent's newest line and the idle worker's label.
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
setTimeout(feed, 100);
setTimeout(() => {
  const a = offtop.agent();
  process.stdout.write(JSON.stringify({ idle: `t${idle.threadId}`, line: a.latest }) + '\n');
  stop = true;
  idle.terminate();
  pool.close();
}, seconds * 1000);
