'use strict';
// Pool: a worker_threads pool whose size is set live (0..256), with a FIFO
// queue and each task's wait (submit to start) and run (start to end)
// times. Size 0 runs tasks on the main thread, one per turn of the event
// loop. Counts always add up: submitted = completed + failed + running +
// queued.
const path = require('node:path');
const { EventEmitter } = require('node:events');
const threads = require('./threads');

const MAX_WORKERS = 256;
const WORKER_FILE = path.join(__dirname, 'pool-worker.js');

class Pool extends EventEmitter {
  // opts.filename: absolute path of the module whose export runs each task
  // (opts.name: the export; default: module.exports or its default);
  // opts.size: the size to start at (default 1).
  constructor(opts = {}) {
    super();
    if (!opts.filename || !path.isAbsolute(opts.filename)) {
      throw new TypeError('offtop Pool: filename must be an absolute path');
    }
    this.filename = opts.filename;
    this.name = opts.name || '';
    this.size = 0;
    this.queue = []; // FIFO of tasks waiting; head at this.head
    this.head = 0;
    this.workers = []; // {slot, worker, task, tid, busyMs, start, retiring, ready}
    this.nextSlot = 0;
    this.nextId = 1;
    this.inline = null; // the task running on the main thread, if any
    this.inlineBusyMs = 0;
    this.inlineScheduled = false;
    this.counts = { submitted: 0, completed: 0, failed: 0, running: 0 };
    this.onTask = null; // (waitMs, runMs, ok) after each task: the agent's
    this.closed = false;
    this.held = true; // workers start ref'd: hold() sets it right
    this.resize(opts.size === undefined ? 1 : opts.size);
    const agent = globalThis[Symbol.for('offtop.agent')];
    if (agent && opts.watch !== false) agent.watch(this);
  }

  get queued() {
    return this.queue.length - this.head;
  }

  // run submits arg for a worker (or the main thread at size 0) and
  // resolves with the export's value, or rejects with its error.
  run(arg, opts = {}) {
    if (this.closed) return Promise.reject(new Error('offtop Pool: closed'));
    return new Promise((resolve, reject) => {
      const t = { id: this.nextId++, arg, name: opts.name || this.name, resolve, reject, submitted: performance.now(), started: 0 };
      this.counts.submitted++;
      this.queue.push(t);
      this.hold();
      this.dispatch();
    });
  }

  // resize sets the size to n (0..256): new workers start at once; a shrink
  // retires idle workers at once and busy ones when their task ends.
  resize(n) {
    if (!Number.isInteger(n) || n < 0 || n > MAX_WORKERS) {
      throw new RangeError(`pool size ${n} out of 0..${MAX_WORKERS}`);
    }
    this.size = n;
    const live = this.workers.filter((w) => !w.retiring);
    for (let i = live.length; i < n; i++) this.spawn();
    let extra = live.length - n;
    // idle ones first, newest first
    for (const w of [...live].reverse().sort((a, b) => (a.task ? 1 : 0) - (b.task ? 1 : 0))) {
      if (extra <= 0) break;
      w.retiring = true;
      extra--;
      if (!w.task) this.retire(w);
    }
    this.dispatch();
  }

  spawn() {
    const w = { slot: this.nextSlot++, worker: null, task: null, tid: null, busyMs: 0, start: 0, retiring: false, ready: false };
    w.worker = new threads.OriginalWorker(WORKER_FILE);
    if (!this.held) w.worker.unref(); // as the others: hold() below sets all
    threads.register(w.worker, `w${w.slot}`, this);
    w.worker.on('message', (m) => {
      if (!w.ready) {
        w.ready = true;
        w.tid = m.tid;
        this.dispatch();
        return;
      }
      this.finish(w, m.ok, m.ok ? m.value : new Error(m.error));
    });
    w.worker.on('error', (err) => {
      if (w.task) this.finish(w, false, err);
    });
    w.worker.on('exit', () => {
      if (w.task) this.finish(w, false, new Error('offtop Pool: worker exited'));
      const i = this.workers.indexOf(w);
      if (i >= 0) this.workers.splice(i, 1);
      if (!w.retiring && !this.closed) this.spawn(); // a worker that died: replaced
      this.dispatch();
    });
    this.workers.push(w);
    this.hold();
  }

  // hold keeps the process alive through the workers while a task is
  // queued or running, and lets it end otherwise.
  hold() {
    const busy = this.counts.running + this.queued > 0;
    if (busy === this.held) return;
    this.held = busy;
    for (const w of this.workers) busy ? w.worker.ref() : w.worker.unref();
  }

  retire(w) {
    const i = this.workers.indexOf(w);
    if (i >= 0) this.workers.splice(i, 1);
    w.worker.removeAllListeners('message');
    w.worker.terminate();
  }

  take() {
    const t = this.queue[this.head];
    this.queue[this.head++] = undefined;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return t;
  }

  dispatch() {
    for (const w of this.workers) {
      if (this.queued === 0) return;
      if (w.ready && !w.task && !w.retiring) {
        const t = this.take();
        this.start(t);
        w.task = t;
        w.start = t.started;
        w.worker.postMessage({ id: t.id, file: this.filename, name: t.name, arg: t.arg });
      }
    }
    if (this.size === 0 && this.queued > 0 && !this.inline && !this.inlineScheduled) {
      this.inlineScheduled = true;
      setImmediate(() => this.runInline());
    }
  }

  start(t) {
    t.started = performance.now();
    this.counts.running++;
  }

  // runInline runs the oldest task on the main thread, then yields to the
  // event loop before the next.
  runInline() {
    this.inlineScheduled = false;
    if (this.size !== 0 || this.queued === 0 || this.inline) return this.dispatch();
    const t = this.take();
    this.start(t);
    this.inline = t;
    let fn;
    let p;
    try {
      fn = require(this.filename);
      fn = t.name ? fn[t.name] : typeof fn === 'function' ? fn : fn.default;
      if (typeof fn !== 'function') throw new TypeError(`${this.filename} exports no function ${t.name || 'default'}`);
      p = Promise.resolve(fn(t.arg));
    } catch (err) {
      p = Promise.reject(err);
    }
    this.inlineBusyMs += performance.now() - t.started; // the synchronous part: the main thread held
    p.then(
      (v) => this.end(t, true, v),
      (e) => this.end(t, false, e),
    ).finally(() => {
      this.inline = null;
      this.dispatch();
    });
  }

  finish(w, ok, value) {
    const t = w.task;
    if (!t) return;
    w.task = null;
    w.busyMs += performance.now() - w.start;
    w.start = 0;
    this.end(t, ok, value);
    if (w.retiring) this.retire(w);
    this.dispatch();
  }

  end(t, ok, value) {
    const now = performance.now();
    this.counts.running--;
    if (ok) this.counts.completed++;
    else this.counts.failed++;
    this.hold();
    if (this.onTask) this.onTask(t.started - t.submitted, now - t.started, ok);
    if (ok) t.resolve(value);
    else t.reject(value);
  }

  // stats is the pool's figures now: counts, and per worker its slot, its
  // busy time in ms (the task in progress included), its thread id and
  // whether a shrink chose it. The main thread's inline work is inlineBusyMs.
  stats() {
    const now = performance.now();
    return {
      size: this.size,
      queued: this.queued,
      ...this.counts,
      inlineBusyMs: this.inlineBusyMs,
      workers: this.workers.map((w) => ({
        slot: w.slot,
        busyMs: w.busyMs + (w.task ? now - w.start : 0),
        tid: w.tid,
        retiring: w.retiring,
        worker: w.worker,
      })),
    };
  }

  // close fails the queued tasks and ends every worker.
  async close() {
    this.closed = true;
    while (this.queued > 0) {
      const t = this.take();
      this.counts.running++; // end() takes it off
      this.end(t, false, new Error('offtop Pool: closed'));
    }
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }
}

module.exports = { Pool, MAX_WORKERS };
