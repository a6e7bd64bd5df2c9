'use strict';
// Run with the preload: resets the agent, then busy-waits STALL_MS every
// EVERY_MS for SECONDS, stall k at t0 + k*EVERY_MS + phase(k), and prints
// the agent's newest stream line once a sample after the last stall is in.
// phase(k) is frac(k * golden ratio) of 10 ms, as offtop's stall scenario:
// a request arrives at a random moment, not in step with the probe, so
// stalls fall at every phase of the 10 ms probe and the max reads D.
const offtop = require('../index.js');

const stallMs = Number(process.argv[2] || 100);
const everyMs = Number(process.argv[3] || 1000);
const seconds = Number(process.argv[4] || 12);
const a = offtop.agent();
a.apply({ kind: 'reset', n: 0 });
const t0 = performance.now();
const phase = (k) => ((k * 0.6180339887498949) % 1) * 10;
function schedule(k) {
  const at = t0 + k * everyMs + phase(k);
  if (at > t0 + seconds * 1000) return;
  setTimeout(() => {
    const end = performance.now() + stallMs;
    while (performance.now() < end);
    schedule(k + 1);
  }, Math.max(0, at - performance.now()));
}
schedule(1);
setTimeout(() => process.stdout.write(JSON.stringify(a.latest) + '\n'), seconds * 1000 + 2 * a.o.intervalMs + 50);
