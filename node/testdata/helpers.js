'use strict';
// Helpers of the agent's tests: real HTTP over loopback.
const http = require('node:http');
const os = require('node:os');

// request sends one request to the agent at addr and resolves with
// {status, body}.
function request(addr, method, path, { token, body } = {}) {
  return new Promise((resolve, reject) => {
    const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), addr.slice(addr.lastIndexOf(':') + 1)];
    const headers = { 'Content-Type': 'application/json' };
    if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    const req = http.request({ host, port, method, path: '/debug/offtop/' + path, headers }, (res) => {
      const parts = [];
      res.on('data', (b) => parts.push(b));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(parts).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

// follow reads the agent's stream, parsed, until take(line) returns a
// value other than undefined, and resolves with it.
function follow(addr, take) {
  return new Promise((resolve, reject) => {
    const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), addr.slice(addr.lastIndexOf(':') + 1)];
    let buf = '';
    let done = false;
    const req = http.get({ host, port, path: '/debug/offtop/stream' }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (s) => {
        buf += s;
        let i;
        while (!done && (i = buf.indexOf('\n')) >= 0) {
          const v = take(JSON.parse(buf.slice(0, i)));
          buf = buf.slice(i + 1);
          if (v !== undefined) {
            done = true;
            req.destroy();
            resolve(v);
          }
        }
      });
    });
    req.on('error', (err) => (done ? null : reject(err)));
  });
}

// lines reads the first n lines of the agent's stream, parsed.
function lines(addr, n) {
  const out = [];
  return follow(addr, (l) => (out.push(l) === n ? out : undefined));
}

// lineWhere resolves with the stream's first line for which pred is true.
function lineWhere(addr, pred) {
  return follow(addr, (l) => (pred(l) ? l : undefined));
}

// busy is why a timing test is not judged now ('' when the machine is
// quiet enough: the 1-minute load under 1.5).
function busy() {
  const l = os.loadavg()[0];
  return l > 1.5 ? `not judged: machine busy (load ${l.toFixed(2)})` : '';
}

// spin busy-waits ms on the calling thread.
function spin(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// balanced reports whether a stream line's counts add up.
function balanced(s) {
  return s.submitted === s.completed + s.failed + s.timed_out + s.running + s.queue_depth;
}

module.exports = { request, lines, lineWhere, busy, spin, sleep, balanced };
