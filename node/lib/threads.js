'use strict';
// The worker threads of this process: every worker_threads.Worker made
// after hook() (the preload calls it) or by the Pool is registered here
// with a label, so the agent reads each one's event-loop utilization.
const wt = require('node:worker_threads');
const { syncBuiltinESMExports } = require('node:module');

const OriginalWorker = wt.Worker;
const live = new Map(); // label -> {worker, label, pool, online}
let hooked = false;

// register adds w under label until it exits; pool is the Pool it belongs
// to (null: one the program made).
function register(w, label, pool) {
  const e = { worker: w, label, pool: pool || null, online: false };
  live.set(label, e);
  w.once('online', () => {
    e.online = true;
  });
  w.once('exit', () => {
    if (live.get(label) === e) live.delete(label);
  });
  return e;
}

// hook replaces worker_threads.Worker (for require and import alike) with a
// subclass that registers each worker as t<threadId>. Safe twice.
function hook() {
  if (hooked) return;
  hooked = true;
  class Worker extends OriginalWorker {
    constructor(...args) {
      super(...args);
      register(this, `t${this.threadId}`, null);
    }
  }
  wt.Worker = Worker;
  syncBuiltinESMExports();
}

module.exports = { OriginalWorker, register, hook, live };
