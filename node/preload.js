'use strict';
// node --require offtop-agent/preload app.js: starts the agent before the
// program, and finds every worker_threads.Worker it makes. Configured by
// the environment:
//   OFFTOP_LISTEN        host:port to serve (default 127.0.0.1:0: a free port)
//   OFFTOP_NAME          the program's name on the dashboard (default: the script's)
//   OFFTOP_CONTROL=1     take actions (pool resize) with the token file's token
//   OFFTOP_ALLOW_REMOTE=1  serve a non-loopback OFFTOP_LISTEN
//   OFFTOP_ADDR_FILE     write the bound host:port there once serving
//   OFFTOP_INTERVAL_MS, OFFTOP_RESOLUTION_MS  sampling and probe periods
//   OFFTOP_HTTP=0        leave the program's HTTP servers alone: no routes
//                        recorded, the agent not served on them (1: the default)
// The agent says where it serves on stderr. A bad setting is one line on
// stderr and exit 2, before the program runs (so is a Node older than
// package.json's engines). Only the first process
// runs an agent: its children (fork, cluster), which inherit --require,
// see OFFTOP_AGENT_PID and start none.
const { isMainThread } = require('node:worker_threads');
const engines = require('./lib/engines');

if (engines.older(process.version)) {
  process.stderr.write(`offtop agent: Node ${process.version} is older than ${engines.floor.text}, the oldest the agent runs on\n`);
  process.exit(2);
}

const first = !process.env.OFFTOP_AGENT_PID || process.env.OFFTOP_AGENT_PID === String(process.pid);
if (isMainThread && first) {
  process.env.OFFTOP_AGENT_PID = String(process.pid);
  const fs = require('node:fs');
  const path = require('node:path');
  const offtop = require('./index.js');
  const env = process.env;
  const fail = (msg) => {
    process.stderr.write(`offtop agent: ${msg}\n`);
    process.exit(2);
  };
  const num = (name, def) => {
    if (!env[name]) return def;
    const v = Number(env[name]);
    if (!Number.isInteger(v) || v < 1 || v > 60000) fail(`${name}=${JSON.stringify(env[name])}: want a whole number of ms in 1..60000`);
    return v;
  };
  if (env.OFFTOP_HTTP !== undefined && env.OFFTOP_HTTP !== '0' && env.OFFTOP_HTTP !== '1') {
    fail(`OFFTOP_HTTP=${JSON.stringify(env.OFFTOP_HTTP)}: want 0 (leave the HTTP servers alone) or 1 (the default)`);
  }
  const listen = env.OFFTOP_LISTEN || '127.0.0.1:0';
  const allowRemote = env.OFFTOP_ALLOW_REMOTE === '1';
  try {
    if (!allowRemote) offtop.checkLoopback(listen);
  } catch (err) {
    fail(`OFFTOP_LISTEN: ${err.message.replace(/^offtop agent: /, '')}`);
  }
  offtop.hookWorkers();
  const script = process.argv[1] ? path.basename(process.argv[1]) : 'node';
  offtop
    .start({
      listen,
      allowRemote,
      name: env.OFFTOP_NAME || script,
      control: env.OFFTOP_CONTROL === '1',
      http: env.OFFTOP_HTTP !== '0',
      intervalMs: num('OFFTOP_INTERVAL_MS', 250),
      resolutionMs: num('OFFTOP_RESOLUTION_MS', 10),
    })
    .then((a) => {
      process.stderr.write(`offtop agent: serving http://${a.address()}/debug/offtop/ (offtop attach ${a.address()})\n`);
      if (env.OFFTOP_ADDR_FILE) {
        const tmp = env.OFFTOP_ADDR_FILE + '.tmp';
        fs.writeFileSync(tmp, a.address() + '\n', { mode: 0o600 });
        fs.renameSync(tmp, env.OFFTOP_ADDR_FILE);
      }
    })
    .catch((err) => fail(err.message.replace(/^offtop agent: /, '')));
}
