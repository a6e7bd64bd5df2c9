'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { LagProbe } = require('../lib/probe');

// A sample 100 ms late on a 10 ms schedule: lateness from the due time,
// the 10 due times it ran past counted as missed and made up for.
test('lateness is from the fixed schedule, corrected', () => {
  let now = 0;
  const p = new LagProbe({ resolutionMs: 10, now: () => now }).start();
  p.stop();
  now = 10.2; // sample 1, due at 10
  p.sample();
  p.stop();
  assert.equal(p.due, 20);
  now = 120; // due at 20, ran 100 ms late
  p.sample();
  p.stop();
  const s = p.stats();
  assert.equal(s.raw.count, 2);
  assert.equal(s.corrected.count, 1 + 10);
  assert.ok(Math.abs(s.raw.max - 100e6) / 100e6 < 0.01, `max ${s.raw.max}`);
  assert.equal(s.missed, 10); // 30, 40, ..., 120
  assert.equal(p.due, 130); // the first due time strictly after it ran
});
