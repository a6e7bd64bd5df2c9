#!/usr/bin/env node
// Blocks Node's event loop for D ms every P ms (busy-wait) for N seconds
// while perf_hooks.monitorEventLoopDelay({resolution: 10}) records, then
// prints one JSON line: {p50_ms, p99_ms, p999_ms, max_ms, ...}.
// Usage: node eld.js STALL_MS EVERY_MS SECONDS
// Note: Node's histogram samples are the full delay of a 10ms timer, i.e.
// each sample includes the resolution (an idle loop reads about 10ms).
'use strict';
const { monitorEventLoopDelay, performance } = require('perf_hooks');

const stallMs = Number(process.argv[2] ?? 100);
const everyMs = Number(process.argv[3] ?? 1000);
const seconds = Number(process.argv[4] ?? 12);
const resolution = 10;

const h = monitorEventLoopDelay({ resolution });
h.enable();
const t0 = performance.now();
let stalls = 0;

function busy(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* spin */ }
}

// Schedule stalls at absolute times t0 + k*P so they do not drift.
function schedule(k) {
  const at = t0 + k * everyMs;
  if (at + stallMs > t0 + seconds * 1000) return;
  setTimeout(() => {
    busy(stallMs);
    stalls++;
    schedule(k + 1);
  }, Math.max(0, at - performance.now()));
}
schedule(1);

setTimeout(() => {
  h.disable();
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  console.log(JSON.stringify({
    p50_ms: ms(h.percentile(50)),
    p99_ms: ms(h.percentile(99)),
    p999_ms: ms(h.percentile(99.9)),
    max_ms: ms(h.max),
    min_ms: ms(h.min),
    samples: h.count,
    stalls,
    stall_ms: stallMs,
    every_ms: everyMs,
    seconds,
    resolution_ms: resolution,
  }));
}, seconds * 1000);
