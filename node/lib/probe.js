'use strict';
// LagProbe measures how late the main thread runs a timer against a fixed
// schedule: sample k is due at t0 + k*resolution (never setInterval's own
// idea of the next time), and its lateness is when it ran minus that due
// time. One sample is in flight at a time; the next is due at the first
// due time strictly after the last one ran (skipped due times counted in
// missed and made up for by the corrected histogram, hdr's
// coordinated-omission correction with resolution as the interval).
const { Recorder } = require('./hist');

class LagProbe {
  // resolutionMs: the period; windowMs: the sliding window; now(): ms.
  constructor({ resolutionMs = 10, windowMs = 5000, now } = {}) {
    if (!(resolutionMs > 0)) throw new RangeError('probe: resolution must be > 0');
    this.now = now || (() => performance.now());
    this.res = resolutionMs;
    this.raw = new Recorder(windowMs, this.now);
    this.corr = new Recorder(windowMs, this.now);
    this.last1s = new Recorder(1000, this.now); // corrected: the chart's point
    this.missed = 0;
    this.observe = null; // (lateNs) after each sample
    this.timer = null;
    this.t0 = this.now();
    this.k = 1;
    this.due = 0;
  }

  start() {
    this.t0 = this.now();
    this.k = 1;
    this.schedule();
    return this;
  }

  schedule() {
    this.due = this.t0 + this.k * this.res;
    this.timer = setTimeout(() => this.sample(), Math.max(0, this.due - this.now()));
    this.timer.unref();
  }

  sample() {
    const ran = this.now();
    this.record((ran - this.due) * 1e6);
    const next = Math.floor((ran - this.t0) / this.res) + 1;
    if (next - this.k > 1) this.missed += next - this.k - 1;
    this.k = Math.max(next, this.k + 1);
    this.schedule();
  }

  // record adds one lateness in ns.
  record(lateNs) {
    const late = Math.max(0, lateNs);
    const res = this.res * 1e6;
    this.raw.record(late);
    this.corr.recordCorrected(late, res);
    this.last1s.recordCorrected(late, res);
    if (this.observe) this.observe(late);
  }

  stats() {
    return {
      corrected: this.corr.window(),
      raw: this.raw.window(),
      correctedAll: this.corr.totalSummary(),
      last1s: this.last1s.window(),
      missed: this.missed,
    };
  }

  reset() {
    this.raw.reset();
    this.corr.reset();
    this.last1s.reset();
    this.missed = 0;
  }

  stop() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

module.exports = { LagProbe };
