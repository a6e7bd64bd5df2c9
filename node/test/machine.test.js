'use strict';
// The rest of the machine's CPU: /proc/stat read as the Go agent reads it.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Machine, parseProcStat, parseCPUList, othersCPUs, busy } = require('../lib/machine');
const { Agent } = require('../lib/agent');
const { sleep } = require('../testdata/helpers');

const NOT_LINUX = process.platform !== 'linux' && 'no /proc/stat off Linux';

// stat is a /proc/stat whose CPUs have these [user, nice, system, idle,
// iowait, irq, softirq, steal] ticks; the "cpu" line is their sum.
function stat(cpus) {
  const sum = cpus.reduce((a, c) => a.map((v, i) => v + c[i]), [0, 0, 0, 0, 0, 0, 0, 0]);
  const line = (name, v) => `${name}  ${v.join(' ')} 0 0`;
  return [line('cpu', sum), ...cpus.map((c, i) => line(`cpu${i}`, c)), 'intr 12345 0 0', 'ctxt 999', ''].join('\n');
}

test('parseProcStat sums the busy fields of the CPUs asked, the cpu line for every CPU', () => {
  const text = stat([
    [10, 1, 5, 100, 7, 2, 3, 4], // busy 10+1+5+2+3+4 = 25; idle and iowait left out
    [20, 0, 10, 50, 0, 0, 0, 0], // busy 30
  ]);
  assert.deepEqual(parseProcStat(text, null), { ticks: 55, cpus: 2 });
  assert.deepEqual(parseProcStat(text, new Set([1])), { ticks: 30, cpus: 1 });
  assert.deepEqual(parseProcStat(text, new Set([0, 1])), { ticks: 55, cpus: 2 });
  assert.equal(parseProcStat(text, new Set([5])), null, 'no line of the mask');
  assert.equal(parseProcStat('intr 1 2\n', null), null, 'no cpu line');
  assert.equal(parseProcStat('cpu  1 2 x 4 5 6 7 8\n', null), null, 'a field that is no number');
});

test('parseCPUList reads the kernel list form', () => {
  assert.deepEqual([...parseCPUList('0-3,8,10-11\n')], [0, 1, 2, 3, 8, 10, 11]);
  assert.deepEqual([...parseCPUList('1')], [1]);
  assert.equal(parseCPUList('3-1'), null);
  assert.equal(parseCPUList('a'), null);
  assert.equal(parseCPUList(''), null);
});

test('othersCPUs is the others busy time per wall time, busy above a quarter of the CPUs', () => {
  const a = { at: 0, othersMs: 1000, cpus: 2, known: true };
  const b = { at: 2000, othersMs: 2200, cpus: 2, known: true };
  assert.equal(othersCPUs(a, b), 0.6);
  assert.equal(othersCPUs(b, { ...a, at: 3000 }), 0, 'never below 0');
  assert.equal(othersCPUs(a, { ...b, known: false }), null);
  assert.equal(othersCPUs(a, { ...b, at: 0 }), null, 'no interval');
  assert.equal(busy(0.6, 2), true);
  assert.equal(busy(0.5, 2), false, 'a quarter of 2 CPUs is not over it');
  assert.equal(busy(null, 2), false);
});

test('Machine reads /proc/stat less this process: a second of others ticks reads about 1 CPU', { skip: NOT_LINUX }, (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'offtop-machine-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.mkdirSync(path.join(root, 'proc'));
  const file = path.join(root, 'proc', 'stat');
  fs.writeFileSync(file, stat([[100, 0, 0, 0, 0, 0, 0, 0], [100, 0, 0, 0, 0, 0, 0, 0]]));
  const m = new Machine(root);
  t.after(() => m.close());
  m.cpus = null; // the cpu line: the fake file has no line for this process's mask
  const a = m.read(0);
  fs.writeFileSync(file, stat([[200, 0, 0, 0, 0, 0, 0, 0], [100, 0, 0, 0, 0, 0, 0, 0]])); // cpu0 busy 1 s more
  const b = m.read(1000);
  assert.ok(a.known && b.known);
  assert.equal(b.cpus, 2);
  const o = othersCPUs(a, b);
  // 1 s of ticks less this process's CPU between the reads (a few ms)
  assert.ok(o > 0.9 && o <= 1, `others ${o}, want about 1`);
  assert.equal(new Machine(path.join(root, 'none')).read().known, false, 'no /proc/stat: unknown');
});

test('the agent says the others and a busy machine in its samples and rows', { skip: NOT_LINUX }, async (t) => {
  const a = new Agent({ intervalMs: 50, http: false, log: () => {} });
  t.after(() => a.close());
  await sleep(1300); // past the live figure's 1 s
  const s = a.latest;
  assert.equal(typeof s.others_cpus, 'number', `others_cpus ${s.others_cpus}`);
  assert.ok(s.others_cpus >= 0);
  assert.equal(s.machine_busy, busy(s.others_cpus, a.mach.read().cpus));
  const row = s.sizes.find((r) => r.current);
  assert.equal(typeof row.others_cpus, 'number', `row others_cpus ${row.others_cpus}`);
  assert.equal(typeof row.machine_busy, 'boolean');
});
