'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { Recorder, Exact, toJSON } = require('../lib/hist');

// The same values through offtop's Go internal/hist (hist.NewExact, Record
// each, RecordCorrected(100e6, 10e6), the Summary as JSON) read exactly so.
test('reads as offtop Go histograms read', () => {
  const e = new Exact();
  for (const v of [0, 1, 999, 1000, 1500, 51234, 1e6, 2.5e6, 9.99e6, 1e8, 3e9, 5e9, 99e9, 2e11]) e.record(v);
  e.record(100e6, 10e6);
  assert.deepEqual(toJSON(e.summary()), {
    p50_ms: 30.015, p90_ms: 5033.165, p99_ms: 100394.861, p999_ms: 100394.861, max_ms: 100394.861, count: 24, clamped: 1,
  });
});

test('an empty summary has null percentiles', () => {
  assert.deepEqual(toJSON(new Exact().summary()), { p50_ms: null, p90_ms: null, p99_ms: null, p999_ms: null, max_ms: null, count: 0 });
});

test('corrected adds the samples a stalled probe missed', () => {
  const e = new Exact();
  e.record(100e6, 10e6); // 100, 90, ..., 10 ms
  const s = e.summary();
  assert.equal(s.count, 10);
  assert.ok(Math.abs(s.p50 - 50e6) / 50e6 < 0.01, `p50 ${s.p50}`);
});

test('the window slides on the injected clock; the total stays', () => {
  let now = 0;
  const r = new Recorder(5000, () => now);
  r.record(1e6);
  now = 2500;
  r.record(2e6);
  assert.equal(r.window().count, 2);
  now = 5200; // the first slot has left the window
  assert.equal(r.window().count, 1);
  now = 20000;
  assert.equal(r.window().count, 0);
  assert.equal(r.totalSummary().count, 2);
  r.reset();
  assert.equal(r.totalSummary().count, 0);
});
