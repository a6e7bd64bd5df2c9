'use strict';
// An HTTP server whose CPU work runs on offtop's pool, so `offtop attach`
// shows what the pool does to the main thread and resizes it live:
//
//   offtop node -- node/examples/server.js --load 4   # the dashboard on it, with its own load
//   node node/examples/server.js                      # or serve it, then: offtop attach 127.0.0.1:7071
//
// /ping answers from the main thread; /fast computes fib(30) and /slow
// fib(37) on the pool (on the main thread at pool size 0); /pool says
// {"workers":N}. With --load N the server runs N closed-loop clients
// against itself (/fast, and /slow one request in ten) and a /ping every
// 50 ms. Without a preloaded agent it starts one on --agent (default
// 127.0.0.1:7071) with control on.
const http = require('node:http');
const path = require('node:path');
const offtop = require('../index.js');

function parse(argv) {
  const o = { listen: '127.0.0.1:8080', agent: '127.0.0.1:7071', workers: 1, load: 0 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const val = () => (inline !== undefined ? inline : argv[++i]);
    switch (flag) {
      case '--listen':
        o.listen = val();
        break;
      case '--agent':
        o.agent = val();
        break;
      case '--workers':
        o.workers = Number(val());
        break;
      case '--load':
        o.load = Number(val());
        break;
      case '--help':
        process.stdout.write('usage: server.js [--listen HOST:PORT] [--agent HOST:PORT] [--workers N] [--load N]\n');
        process.exit(0);
      default:
        throw new Error(`unknown flag ${JSON.stringify(argv[i])} (--help)`);
    }
  }
  for (const k of ['workers', 'load']) {
    if (!Number.isInteger(o[k]) || o[k] < 0 || o[k] > 256) throw new Error(`--${k}: want a whole number in 0..256`);
  }
  offtop.checkLoopback(o.listen);
  return o;
}

async function main() {
  const o = parse(process.argv.slice(2));
  if (!offtop.agent()) {
    const a = await offtop.start({ listen: o.agent, control: true, name: 'server.js' });
    process.stderr.write(`server: offtop agent at http://${a.address()}/debug/offtop/ (offtop attach ${a.address()})\n`);
  }
  const pool = new offtop.Pool({ filename: path.join(__dirname, 'fib.js'), size: o.workers });
  const server = http.createServer((req, res) => {
    const url = req.url.split('?')[0];
    const fib = (n) =>
      pool.run(n).then(
        (v) => res.end(`${v}\n`),
        (err) => {
          res.statusCode = 500;
          res.end(`${err.message}\n`);
        },
      );
    switch (url) {
      case '/ping':
        return res.end('pong\n');
      case '/fast':
        return fib(30);
      case '/slow':
        return fib(37);
      case '/pool':
        res.setHeader('Content-Type', 'application/json');
        return res.end(JSON.stringify({ workers: pool.size }) + '\n');
    }
    res.statusCode = 404;
    res.end('not found\n');
  });
  const [host, port] = [o.listen.slice(0, o.listen.lastIndexOf(':')), Number(o.listen.slice(o.listen.lastIndexOf(':') + 1))];
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, host.replace(/^\[|\]$/g, ''), resolve));
  const addr = server.address();
  const base = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
  process.stderr.write(`server: serving ${base}/ping, /fast, /slow, /pool\n`);
  if (o.load > 0) selfLoad(base, o.load);
}

// selfLoad runs n closed-loop clients of /fast (one request in ten /slow)
// and a /ping every 50 ms, with a connection pool of their own.
function selfLoad(base, n) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: n + 1 });
  const get = (p) =>
    new Promise((resolve) => {
      http
        .get(base + p, { agent }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', () => setTimeout(resolve, 100));
    });
  for (let i = 0; i < n; i++) {
    (async () => {
      for (let k = 1; ; k++) await get(k % 10 === 0 ? '/slow' : '/fast');
    })();
  }
  setInterval(() => get('/ping'), 50);
}

main().catch((err) => {
  process.stderr.write(`server: ${err.message}\n`);
  process.exit(2);
});
