'use strict';
// The pool's worker: runs each task it is sent ({id, file, name, arg}) and
// answers {id, ok, value} or {id, ok: false, error}; its first message is
// its OS thread id (for its CPU time), null where /proc has none.
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');

let tid = null;
try {
  tid = Number(fs.readFileSync('/proc/thread-self/stat', 'utf8').split(' ', 1)[0]) || null;
} catch {
  tid = null;
}
parentPort.postMessage({ tid });

const fns = new Map();
function fnOf(file, name) {
  const key = file + '\0' + (name || '');
  let fn = fns.get(key);
  if (!fn) {
    const mod = require(file);
    fn = name ? mod[name] : typeof mod === 'function' ? mod : mod.default;
    if (typeof fn !== 'function') throw new TypeError(`${file} exports no function ${name || 'default'}`);
    fns.set(key, fn);
  }
  return fn;
}

parentPort.on('message', async (m) => {
  try {
    const value = await fnOf(m.file, m.name)(m.arg);
    parentPort.postMessage({ id: m.id, ok: true, value });
  } catch (err) {
    parentPort.postMessage({ id: m.id, ok: false, error: String((err && err.message) || err) });
  }
});
