'use strict';
// Run with the preload: resets the agent, then busy-waits STALL_MS every
// EVERY_MS (at fixed times t0 + k*EVERY_MS) for SECONDS, and prints the
// agent's newest stream line once a sample after the last stall is in.
const offtop = require('../index.js');

const stallMs = Number(process.argv[2] || 100);
const everyMs = Number(process.argv[3] || 1000);
const seconds = Number(process.argv[4] || 12);
const a = offtop.agent();
a.apply({ kind: 'reset', n: 0 });
const t0 = performance.now();
function schedule(k) {
  const at = t0 + k * everyMs;
  if (at > t0 + seconds * 1000) return;
  setTimeout(() => {
    const end = performance.now() + stallMs;
    while (performance.now() < end);
    schedule(k + 1);
  }, Math.max(0, at - performance.now()));
}
schedule(1);
setTimeout(() => process.stdout.write(JSON.stringify(a.latest) + '\n'), seconds * 1000 + 2 * a.o.intervalMs + 50);
