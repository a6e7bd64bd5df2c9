'use strict';
// offtop's agent for Node.js: `offtop attach ADDR` shows this process
// (the main thread's lateness, corrected for coordinated omission, beside
// monitorEventLoopDelay; event-loop utilization of the main thread and of
// every worker; RSS, heap, CPU time) and resizes its Pool live.
//
//   const offtop = require('offtop-agent');
//   const agent = await offtop.start({ listen: '127.0.0.1:7070', control: true });
//   const pool = new offtop.Pool({ filename: require.resolve('./task.js'), size: 2 });
//   await pool.run(30); // the module's export, on a worker (or the main thread at size 0)
//
// One agent per process: when the preload (node --require offtop-agent/preload)
// started one, start() returns it, and every copy of this module hands out
// the preloaded one's classes.
const key = Symbol.for('offtop.module');
if (!globalThis[key]) {
  const agent = require('./lib/agent');
  const { Pool } = require('./lib/pool');
  const threads = require('./lib/threads');
  globalThis[key] = {
    start: agent.start,
    Pool,
    checkLoopback: agent.checkLoopback,
    hookWorkers: threads.hook,
    // agent is the running agent, or null.
    agent: () => globalThis[Symbol.for('offtop.agent')] || null,
    // watch hands the running agent a pool (an offtop Pool or a piscina
    // pool); a no-op without an agent.
    watch: (p) => {
      const a = globalThis[Symbol.for('offtop.agent')];
      return a ? a.watch(p) : p;
    },
  };
}
module.exports = globalThis[key];
