'use strict';

// machine reads how much CPU the rest of the machine uses, as the Go
// agent's sysinfo.ProcStat does: the busy time of the CPUs in this
// process's affinity mask in /proc/stat (user, nice, system, irq, softirq,
// steal; guest is in user) minus this process's CPU time
// (process.cpuUsage). Two readings give the others' CPUs between them
// (othersCPUs). Linux only: elsewhere every reading is unknown.

const fs = require('node:fs');

// BUSY_SHARE is the limit of a quiet machine: others using more than this
// share of the CPUs a reading covers means a figure measured then
// measures the neighbours too. The Go agent's sysinfo.BusyShare.
const BUSY_SHARE = 0.25;

// USER_HZ is the unit of /proc/stat's times: 100 ticks a second on every
// Linux ABI.
const USER_HZ = 100;

// parseCPUList reads a kernel CPU list ("0-3,8,10-11", as in
// /proc/self/status's Cpus_allowed_list) into a Set of CPU numbers; null
// when it does not parse.
function parseCPUList(s) {
  const out = new Set();
  for (const part of String(s).trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) return null;
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi < lo || hi - lo > 4096) return null;
    for (let c = lo; c <= hi; c++) out.add(c);
  }
  return out.size > 0 ? out : null;
}

// parseProcStat sums the busy ticks of /proc/stat's lines "cpuN" with N
// in cpus, or of the line "cpu" (every CPU) when cpus is null, and says how
// many CPUs they are: { ticks, cpus }, or null when there is no such line.
// A pure function.
function parseProcStat(text, cpus) {
  let ticks = 0;
  let n = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('cpu')) break; // the cpu lines come first
    const f = line.trim().split(/\s+/);
    const name = f[0];
    const cpu = name === 'cpu' ? -1 : Number(name.slice(3));
    if (cpus === null ? cpu !== -1 : cpu === -1 || !cpus.has(cpu)) continue;
    const v = f.slice(1, 9).map(Number); // user nice system idle iowait irq softirq steal
    if (v.length < 8 || v.some((x) => !Number.isFinite(x))) return null;
    ticks += v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    if (cpu === -1) {
      n = text.split('\n').filter((l) => /^cpu\d/.test(l)).length;
      return { ticks, cpus: n };
    }
    n++;
  }
  return n > 0 ? { ticks, cpus: n } : null;
}

// affinity is the CPUs this process may run on, null for every CPU (or
// when unknown).
function affinity() {
  try {
    const m = /^Cpus_allowed_list:\s*(.+)$/m.exec(fs.readFileSync('/proc/self/status', 'latin1'));
    return m ? parseCPUList(m[1]) : null;
  } catch {
    return null;
  }
}

// Machine reads { at (performance.now() ms), othersMs (cumulative), cpus,
// known }: /proc/stat kept open and read at offset 0.
class Machine {
  constructor(root = '') {
    this.cpus = affinity();
    this.buf = Buffer.alloc(32 << 10);
    try {
      this.fd = fs.openSync(root + '/proc/stat', 'r');
    } catch {
      this.fd = -1;
    }
  }

  read(now = performance.now()) {
    const r = { at: now, othersMs: 0, cpus: 0, known: false };
    if (this.fd < 0) return r;
    let n;
    try {
      n = fs.readSync(this.fd, this.buf, 0, this.buf.length, 0);
    } catch {
      return r;
    }
    const own = process.cpuUsage();
    const p = parseProcStat(this.buf.toString('latin1', 0, n), this.cpus);
    if (p === null) return r;
    r.othersMs = (p.ticks * 1000) / USER_HZ - (own.user + own.system) / 1e3;
    r.cpus = p.cpus;
    r.known = true;
    return r;
  }

  close() {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
  }
}

// othersCPUs is the CPUs' worth of time others used between readings a
// and b (1: one CPU busy with other work), at least 0; null when either is
// unknown or the interval is not positive.
function othersCPUs(a, b) {
  const wall = b.at - a.at;
  if (!a.known || !b.known || !(wall > 0)) return null;
  return Math.max((b.othersMs - a.othersMs) / wall, 0);
}

// busy says others took more than BUSY_SHARE of cpus.
function busy(others, cpus) {
  return others !== null && cpus > 0 && others > BUSY_SHARE * cpus;
}

module.exports = { Machine, parseProcStat, parseCPUList, othersCPUs, busy, BUSY_SHARE };
