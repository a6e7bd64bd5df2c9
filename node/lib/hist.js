'use strict';
// HDR histograms over a sliding window and since the last reset, in the
// layout and percentile convention of offtop's Go package internal/hist
// (HdrHistogram's log-linear buckets, 1 us .. 100 s, 2 significant
// figures): a value here reads back exactly as offtop's Go agent reads it.
// Values are nanoseconds (Numbers: exact below 2^53).

const LOWEST = 1000; // 1 us
const HIGHEST = 100e9; // 100 s; larger values are clamped and counted
const UNIT_MAGNITUDE = 9; // floor(log2(LOWEST))
const SUB_HALF_MAG = 7; // ceil(log2(2 * 10^2)) - 1
const SUB_HALF = 1 << SUB_HALF_MAG;
const SUB_MASK = (2 * SUB_HALF - 1) * 2 ** UNIT_MAGNITUDE;
const SLOTS = 10;

// bitLen is the number of bits of v (0 <= v < 2^53).
function bitLen(v) {
  if (v >= 2 ** 32) return 64 - Math.clz32(Math.floor(v / 2 ** 32));
  return 32 - Math.clz32(v);
}

// index is the bucket of v (0 <= v <= HIGHEST).
function index(v) {
  const m = v < 2 ** 32 ? (v | SUB_MASK) >>> 0 : v; // above 2^32 the mask's bits change nothing
  const bucket = bitLen(m) - UNIT_MAGNITUDE - (SUB_HALF_MAG + 1);
  const sub = Math.floor(v / 2 ** (bucket + UNIT_MAGNITUDE));
  return (bucket + 1) * SUB_HALF + sub - SUB_HALF;
}

// highest is the highest value that lands in bucket i (what hdr reports).
function highest(i) {
  let bucket = Math.floor(i / SUB_HALF) - 1;
  let sub = (i % SUB_HALF) + SUB_HALF;
  if (bucket < 0) {
    sub -= SUB_HALF;
    bucket = 0;
  }
  const lowest = sub * 2 ** (bucket + UNIT_MAGNITUDE);
  let width = 2 ** (bucket + UNIT_MAGNITUDE);
  if (sub >= 2 * SUB_HALF) width *= 2;
  return lowest + width - 1;
}

const COUNTS_LEN = index(HIGHEST) + 1;
const QUANTILES = [50, 90, 99, 99.9];

// Counts is a dense histogram over the layout above.
class Counts {
  constructor() {
    this.c = null;
    this.n = 0;
    this.min = 0;
    this.max = 0;
  }
  add(i, k) {
    if (this.c === null) this.c = new Float64Array(COUNTS_LEN);
    if (this.n === 0 || i < this.min) this.min = i;
    if (this.n === 0 || i > this.max) this.max = i;
    this.c[i] += k;
    this.n += k;
  }
  // addCorrected adds v (i: its index, when known) and v-interval,
  // v-2*interval, ... down to interval (hdr's RecordCorrectedValue).
  addCorrected(v, interval, i = index(v)) {
    this.add(i, 1);
    if (interval <= 0) return;
    for (let m = v - interval; m >= interval; m -= interval) this.add(index(m), 1);
  }
  sub(o) {
    if (o.n === 0) return;
    for (let i = o.min; i <= o.max; i++) this.c[i] -= o.c[i];
    this.n -= o.n;
    if (this.n === 0) return;
    while (this.c[this.min] === 0) this.min++;
    while (this.c[this.max] === 0) this.max--;
  }
  merge(o) {
    if (o.n === 0) return;
    for (let i = o.min; i <= o.max; i++) if (o.c[i] !== 0) this.add(i, o.c[i]);
  }
  reset() {
    if (this.n > 0) this.c.fill(0, this.min, this.max + 1);
    this.n = 0;
  }
  // summary reads percentiles as hdr does: the highest value of the bucket
  // where the count reaches the percentile's rank.
  summary() {
    if (this.n === 0) return emptySummary();
    const n = this.n;
    const ranks = QUANTILES.map((q) => {
      const r = (q / 100) * n + 0.5;
      if (!(r >= 1)) return 1;
      if (r >= n) return n;
      return Math.floor(r);
    });
    const out = [0, 0, 0, 0];
    let j = 0;
    let cum = 0;
    for (let i = this.min; i <= this.max && j < ranks.length; i++) {
      cum += this.c[i];
      while (j < ranks.length && cum >= ranks[j]) out[j++] = highest(i);
    }
    return { p50: out[0], p90: out[1], p99: out[2], p999: out[3], max: highest(this.max), count: n, clamped: 0 };
  }
}

function emptySummary() {
  return { p50: 0, p90: 0, p99: 0, p999: 0, max: 0, count: 0, clamped: 0 };
}

function clamp(v) {
  if (!(v > 0)) return [0, false];
  if (v > HIGHEST) return [HIGHEST, true];
  return [Math.round(v), false];
}

// Recorder keeps a sliding window of `windowMs` (10 slots, the current
// one a function of the clock) and a since-reset histogram of the same
// values. now() is in ms (performance.now by default).
class Recorder {
  constructor(windowMs, now) {
    if (!(windowMs > 0)) throw new RangeError('hist: window must be > 0');
    this.now = now || (() => performance.now());
    this.slot = windowMs / SLOTS;
    this.slots = Array.from({ length: SLOTS }, () => new Counts());
    this.win = new Counts();
    this.total = new Counts();
    this.clampedW = new Array(SLOTS).fill(0);
    this.clamped = 0;
    this.since = this.now();
    this.epoch = Math.floor(this.since / this.slot);
  }
  advance() {
    const e = Math.floor(this.now() / this.slot);
    const steps = Math.min(e - this.epoch, SLOTS);
    for (let k = 0; k < steps; k++) {
      this.epoch++;
      const c = this.epoch % SLOTS;
      if (this.slots[c].n > 0) {
        this.win.sub(this.slots[c]);
        this.slots[c].reset();
      }
      this.clampedW[c] = 0;
    }
    if (e > this.epoch) this.epoch = e;
  }
  record(ns) {
    this.recordCorrected(ns, 0);
  }
  // recordCorrected adds ns and, when it exceeds interval (> 0), the values
  // a probe sampling every interval missed while stalled.
  recordCorrected(ns, interval) {
    this.advance();
    const [v, over] = clamp(ns);
    const c = this.epoch % SLOTS;
    if (over) {
      this.clamped++;
      this.clampedW[c]++;
    }
    const i = index(v);
    this.total.addCorrected(v, interval, i);
    this.slots[c].addCorrected(v, interval, i);
    this.win.addCorrected(v, interval, i);
  }
  window() {
    this.advance();
    const s = this.win.summary();
    s.clamped = this.clampedW.reduce((a, b) => a + b, 0);
    return s;
  }
  // windowSpan is the window's summary and the ms its counts cover: from
  // the oldest slot's start, or the construction or last reset when later,
  // to now.
  windowSpan() {
    const s = this.window();
    const from = Math.max((this.epoch - SLOTS + 1) * this.slot, this.since);
    return { summary: s, spanMs: Math.max(this.now() - from, 0) };
  }
  totalSummary() {
    const s = this.total.summary();
    s.clamped = this.clamped;
    return s;
  }
  reset() {
    for (const s of this.slots) s.reset();
    this.clampedW.fill(0);
    this.win.reset();
    this.total.reset();
    this.clamped = 0;
    this.since = this.now();
    this.epoch = Math.floor(this.since / this.slot);
  }
}

// Exact is a since-reset histogram without a window.
class Exact {
  constructor() {
    this.h = new Counts();
    this.clamped = 0;
  }
  record(ns, interval = 0) {
    const [v, over] = clamp(ns);
    if (over) this.clamped++;
    this.h.addCorrected(v, interval);
  }
  summary() {
    const s = this.h.summary();
    s.clamped = this.clamped;
    return s;
  }
  reset() {
    this.h.reset();
    this.clamped = 0;
  }
}

// ms is ns in milliseconds rounded to the microsecond, as offtop writes
// every latency.
function ms(ns) {
  return Math.round(ns / 1e3) / 1e3;
}

// toJSON is a summary as it travels: {p50_ms, p90_ms, p99_ms, p999_ms,
// max_ms, count}, the percentiles null while count is 0, clamped left out
// while 0.
function toJSON(s) {
  const known = s.count > 0;
  const j = {
    p50_ms: known ? ms(s.p50) : null,
    p90_ms: known ? ms(s.p90) : null,
    p99_ms: known ? ms(s.p99) : null,
    p999_ms: known ? ms(s.p999) : null,
    max_ms: known ? ms(s.max) : null,
    count: s.count,
  };
  if (s.clamped) j.clamped = s.clamped;
  return j;
}

module.exports = { Recorder, Exact, Counts, index, highest, toJSON, ms, emptySummary, LOWEST, HIGHEST };
