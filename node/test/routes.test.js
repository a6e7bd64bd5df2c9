'use strict';
// The agent's HTTP routes (docs/json-lines.md's endpoints): real servers
// over loopback, the route table's clock injected where a latency is read.
const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { Agent } = require('../lib/agent');
const routes = require('../lib/routes');
const { lineWhere } = require('../testdata/helpers');

// listen serves handler on a loopback port; resolves with its base URL.
async function listen(t, handler) {
  const srv = http.createServer(handler);
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => srv.close(r).closeAllConnections()));
  return `http://127.0.0.1:${srv.address().port}`;
}

async function get(url) {
  const r = await fetch(url);
  return { status: r.status, body: await r.text() };
}

function byRoute(eps) {
  return Object.fromEntries((eps || []).map((e) => [e.route, e]));
}

// withClock serves requests into a Routes on a clock the test moves; the
// handle answers the agent's paths. Undone after t.
function withClock(t) {
  const clock = { ms: 1000 };
  const table = new routes.Routes(5000, () => clock.ms);
  const o = { routes: table, prefix: '/debug/offtop/', handle: (req, res) => res.end('agent\n') };
  const before = routes.serving();
  routes.serve(o);
  t.after(() => routes.serve(before));
  return { clock, table };
}

test('each route counts its requests by status class; 404s are unmatched; the query is not the route', async (t) => {
  const { table } = withClock(t);
  const base = await listen(t, (req, res) => {
    const path = req.url.split('?')[0];
    if (path === '/moved') {
      res.statusCode = 302;
      return res.end();
    }
    if (path === '/fail') {
      res.statusCode = 503;
      return res.end();
    }
    if (path === '/odd') {
      res.statusCode = 799; // a 600..999 code counts as 5xx
      return res.end();
    }
    if (path !== '/ping' && path !== '/hash') {
      res.statusCode = 404;
      return res.end();
    }
    res.end('ok\n');
  });
  for (const p of ['/ping', '/ping', '/hash?n=1', '/hash?n=2', '/hash', '/moved', '/fail', '/odd', '/nope', '/nope/2']) {
    await get(base + p);
  }
  const eps = table.read();
  assert.deepEqual(eps.map((e) => e.route), ['/fail', '/hash', '/moved', '/odd', '/ping', 'unmatched']);
  const r = byRoute(eps);
  assert.deepEqual(r['/hash'].status, { '1xx': 0, '2xx': 3, '3xx': 0, '4xx': 0, '5xx': 0 });
  assert.equal(r['/ping'].count, 2);
  assert.equal(r['/moved'].status['3xx'], 1);
  assert.equal(r['/fail'].status['5xx'], 1);
  assert.equal(r['/odd'].status['5xx'], 1);
  assert.deepEqual(r.unmatched.status, { '1xx': 0, '2xx': 0, '3xx': 0, '4xx': 2, '5xx': 0 });
  for (const e of eps) {
    const sum = Object.values(e.status).reduce((a, b) => a + b, 0);
    assert.equal(e.count, sum, `${e.route}: count is the sum of the classes`);
    assert.equal(e.latency.count, e.count, `${e.route}: every response is in the window`);
    assert.deepEqual(Object.keys(e.latency), ['p50_ms', 'p90_ms', 'p99_ms', 'p999_ms', 'max_ms', 'count']);
  }
});

test('latency runs from the request to the response finish, and the rate over the window', async (t) => {
  const { clock, table } = withClock(t);
  const base = await listen(t, (req, res) => {
    if (req.url === '/wait') {
      // the handler's time passes on the table's clock, then it answers
      return setImmediate(() => {
        clock.ms += 20;
        res.end('waited\n');
      });
    }
    res.end('now\n');
  });
  for (let i = 0; i < 4; i++) await get(base + '/wait');
  await get(base + '/now');
  clock.ms += 920; // 1 s since the table started, 0.98 s since /wait's first answer made its route
  const r = byRoute(table.read());
  assert.equal(r['/wait'].latency.count, 4);
  assert.ok(r['/wait'].latency.p50_ms >= 20 && r['/wait'].latency.p50_ms <= 20.2, `p50 ${r['/wait'].latency.p50_ms}`);
  assert.ok(r['/now'].latency.p50_ms < 0.01, `no time passed for /now: ${r['/now'].latency.p50_ms}`);
  assert.equal(r['/wait'].rate_per_s, 4.082, "4 requests over the 0.98 s the route's window covers");
  clock.ms += 60000; // past the window: the window is empty, the counts stay
  const later = byRoute(table.read());
  assert.equal(later['/wait'].latency.count, 0);
  assert.equal(later['/wait'].latency.p50_ms, null);
  assert.equal(later['/wait'].rate_per_s, 0);
  assert.equal(later['/wait'].count, 4);
});

test('the first 64 routes have figures of their own, the rest count as other; unmatched is not among the 64', async (t) => {
  const { table } = withClock(t);
  const base = await listen(t, (req, res) => {
    if (req.url === '/missing') res.statusCode = 404;
    res.end();
  });
  await get(base + '/missing');
  for (let i = 0; i < 70; i++) await get(`${base}/p${i}`);
  await get(base + '/p3');
  await get(base + '/p69');
  const eps = table.read();
  const r = byRoute(eps);
  assert.equal(eps.length, 66, '64 routes, other and unmatched');
  assert.equal(r.other.count, 7, '/p64../p69, and /p69 again');
  assert.equal(r['/p3'].count, 2);
  assert.equal(r['/p64'], undefined);
  assert.equal(r.unmatched.count, 1);
  assert.equal(eps.reduce((a, e) => a + e.count, 0), 73, 'every request counted once');
});

test('the bound holds with 10,000 distinct paths', () => {
  const table = new routes.Routes(5000, () => 0);
  for (let i = 0; i < 10000; i++) table.record(`/item/${i}`, 200, 0, 1);
  const eps = table.read();
  assert.equal(eps.length, 65);
  assert.equal(byRoute(eps).other.count, 10000 - 64);
});

test('an Express route pattern is the route: baseUrl and route.path as the router left them at the finish', async (t) => {
  const { table } = withClock(t);
  // What Express's router does to the request it is handed: it sets
  // req.baseUrl for a mounted router and req.route for the matched
  // route, and rewrites req.url below the mount, before the handler ends.
  const base = await listen(t, (req, res) => {
    const m = /^\/api\/users\/(\d+)$/.exec(req.url);
    if (m) {
      req.baseUrl = '/api';
      req.url = `/users/${m[1]}`;
      setImmediate(() => {
        req.route = { path: '/users/:id', stack: [], methods: { get: true } };
        res.end(m[1]);
      });
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  for (const id of [1, 2, 3]) await get(`${base}/api/users/${id}`);
  await get(`${base}/api/nothing`);
  const r = byRoute(table.read());
  assert.equal(r['/api/users/:id'].count, 3);
  assert.equal(r.unmatched.count, 1);
  assert.equal(Object.keys(r).length, 2);
});

test("a route is named under the mount it matched in, though the request leaves the router (next(err) restores req.baseUrl) before the finish", async (t) => {
  const { table } = withClock(t);
  // What Express's router does to a request whose handler throws: baseUrl
  // set at the mount, req.route set, then baseUrl restored as the error
  // leaves the router, req.route left; the app's error handler answers.
  const base = await listen(t, (req, res) => {
    req.baseUrl = '/api';
    req.url = '/boom';
    req.route = { path: '/boom', stack: [], methods: { get: true } };
    setImmediate(() => {
      req.baseUrl = '';
      res.statusCode = 500;
      res.end('boom');
    });
  });
  await get(`${base}/api/boom`);
  assert.deepEqual(Object.keys(byRoute(table.read())), ['/api/boom']);
});

test('an upgraded connection counts once as 1xx under its path, as the Go agent counts a hijacked one', async (t) => {
  const { table } = withClock(t);
  const net = require('node:net');
  const srv = http.createServer((req, res) => res.end('app\n'));
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => srv.close(r).closeAllConnections()));
  const upgradeOn = (port) =>
    new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => c.write('GET /ws?x=1 HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n'));
      c.once('data', (d) => (c.destroy(), resolve(String(d))));
      c.once('close', () => resolve(''));
    });
  srv.on('upgrade', (req, sock) => {
    sock.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\n');
  });
  assert.match(await upgradeOn(srv.address().port), /^HTTP\/1.1 101/);
  const r = byRoute(table.read());
  assert.deepEqual(Object.keys(r), ['/ws']);
  assert.equal(r['/ws'].count, 1);
  assert.equal(r['/ws'].status['1xx'], 1);
});

test('a long path is cut to 128 bytes at a character start', () => {
  const long = '/' + 'é'.repeat(100);
  const c = routes.cut(long);
  assert.ok(Buffer.byteLength(c) <= 128 && Buffer.byteLength(c) >= 126, `${Buffer.byteLength(c)} bytes`);
  assert.ok(long.startsWith(c));
  assert.equal(routes.cut('/short'), '/short');
});

test('a connection that ends before the response counts once', async (t) => {
  const { table } = withClock(t);
  let closed, arrived;
  const gone = new Promise((r) => (closed = r));
  const came = new Promise((r) => (arrived = r));
  const base = await listen(t, (req, res) => {
    res.on('close', () => setImmediate(closed));
    arrived();
  });
  const ac = new AbortController();
  const p = fetch(base + '/hang', { signal: ac.signal }).catch(() => {});
  await came;
  ac.abort();
  await p;
  await gone;
  assert.equal(byRoute(table.read())['/hang'].count, 1);
});

test('the agent: its paths answer on the program server, unrecorded; its own server is not the program; the stream carries endpoints', async (t) => {
  const a = new Agent({ intervalMs: 50, log: () => {} });
  const addr = await a.listen('127.0.0.1:0');
  t.after(() => a.close());
  const base = await listen(t, (req, res) => res.end('app\n'));
  assert.equal(a.routes.read(), null, 'null before the first request');
  const info = await get(base + '/debug/offtop/');
  assert.equal(JSON.parse(info.body).agent, 'offtop');
  await get(`http://${addr}/not-the-agent`);
  assert.equal(a.routes.read(), null, "neither the agent's paths nor its own server are routes");
  await get(base + '/hello?x=1');
  const line = await lineWhere(base.slice(7), (l) => l.endpoints !== null);
  assert.deepEqual(line.endpoints.map((e) => e.route), ['/hello']);
  assert.equal(line.endpoints[0].count, 1);
  await a.close();
  assert.equal((await get(base + '/debug/offtop/')).body, 'app\n', 'a closed agent leaves the server alone');
});

test('http: false leaves the servers alone', async (t) => {
  const a = new Agent({ intervalMs: 50, log: () => {}, http: false });
  t.after(() => a.close());
  const base = await listen(t, (req, res) => res.end('app\n'));
  assert.equal((await get(base + '/debug/offtop/')).body, 'app\n');
  await get(base + '/x');
  assert.equal(a.latest.endpoints, null);
  assert.equal(a.routes, null);
});

// express is Express where it is installed (a test dependency only, as
// prom-client: NODE_PATH or npm install --no-save express@4 in node/).
function express() {
  try {
    return require('express');
  } catch {
    return null;
  }
}
const NO_EXPRESS = !express() && 'express not installed (npm install --no-save express@4 in node/, or NODE_PATH)';

test('Express: a route is its pattern, a mounted router prefixed by its mount; its 404 is unmatched', { skip: NO_EXPRESS }, async (t) => {
  const { table } = withClock(t);
  const app = express()();
  const api = express().Router();
  api.get('/users/:id', (req, res) => setImmediate(() => res.send(req.params.id)));
  app.use('/api', api);
  app.get('/ping', (req, res) => res.send('pong'));
  api.get('/boom', () => {
    throw new Error('boom');
  });
  app.use((req, res, next) => next()); // a middleware without a route
  app.use((err, req, res, next) => res.status(500).send('failed')); // eslint-disable-line no-unused-vars
  const base = await listen(t, app);
  for (const p of ['/api/users/1', '/api/users/2?x=1', '/ping', '/ping', '/api/nothing', '/nope', '/api/boom']) await get(base + p);
  const r = byRoute(table.read());
  assert.deepEqual(Object.keys(r).sort(), ['/api/boom', '/api/users/:id', '/ping', 'unmatched']);
  assert.equal(r['/api/boom'].status['5xx'], 1, 'a thrown handler under its mount');
  assert.equal(r['/api/users/:id'].count, 2);
  assert.equal(r['/ping'].count, 2);
  assert.equal(r.unmatched.status['4xx'], 2);
});

test("the agent's paths on a program server bound to every interface: 403 from a public address, served on loopback", async (t) => {
  const os = require('node:os');
  const ip = Object.values(os.networkInterfaces()).flat().find((a) => a.family === 'IPv4' && !a.internal);
  if (!ip) return t.skip('no non-loopback IPv4 address on this machine');
  const a = new Agent({ intervalMs: 50, log: () => {} });
  t.after(() => a.close());
  const srv = http.createServer((req, res) => res.end('app\n'));
  await new Promise((r) => srv.listen(0, '0.0.0.0', r));
  t.after(() => new Promise((r) => srv.close(r).closeAllConnections()));
  const port = srv.address().port;
  const pub = await get(`http://${ip.address}:${port}/debug/offtop/`);
  assert.equal(pub.status, 403);
  assert.equal(pub.body, 'offtop agent: loopback only\n');
  assert.equal((await get(`http://127.0.0.1:${port}/debug/offtop/`)).status, 200);
  assert.equal((await get(`http://${ip.address}:${port}/app`)).body, 'app\n');
});

// Each request is filed under the size row in force when it arrived, if
// no other size came into force before it ended (sizes[].served by route,
// as the Go agent files them): one held across a resize counts in no row,
// only in the unsettled of the size it arrived at.
test("sizes[].served: each route's requests under the size in force at arrival, none across a resize", async (t) => {
  const path = require('node:path');
  const { Pool } = require('../lib/pool');
  const a = new Agent({ intervalMs: 50, log: () => {} });
  t.after(() => a.close());
  const pool = a.watch(new Pool({ filename: path.join(__dirname, '..', 'testdata', 'echo.js'), size: 0, watch: false }));
  t.after(() => pool.close());
  let release, arrived;
  const held = new Promise((r) => (release = r));
  const here = new Promise((r) => (arrived = r));
  const base = await listen(t, (req, res) => {
    if (req.url !== '/held') return res.end('app\n');
    arrived();
    held.then(() => res.end('late\n'));
  });
  await get(base + '/a');
  await get(base + '/a');
  const late = get(base + '/held');
  await here;
  pool.resize(1);
  await get(base + '/a');
  release();
  await late;
  const sizes = a.sample(a.reading()).sizes;
  const served = Object.fromEntries(sizes.map((r) => [r.workers, r.served]));
  assert.equal(served[0]['/a'].count, 2);
  assert.equal(served[0]['/held'], undefined, 'held across the resize: in no row');
  // the held request, and any probe tick due before the resize
  assert.ok(sizes.find((r) => r.workers === 0).unsettled >= 1);
  assert.equal(served[1]['/a'].count, 1);
  assert.equal(served[1]['/held'], undefined);
  assert.equal(typeof served[1]['/a'].p99_ms, 'number');
});

// A probe tick due before a resize and run after it counts in no row,
// only in the unsettled of the size before; one due after counts at the
// new size.
test('a probe tick due before a resize counts in no row', async (t) => {
  const path = require('node:path');
  const { Pool } = require('../lib/pool');
  const a = new Agent({ intervalMs: 50, log: () => {} });
  t.after(() => a.close());
  const pool = a.watch(new Pool({ filename: path.join(__dirname, '..', 'testdata', 'echo.js'), size: 0, watch: false }));
  t.after(() => pool.close());
  const count = (n) => a.sizeRow(n).probe.summary().count;
  pool.resize(1);
  const u0 = a.sizeRow(0).unsettled;
  const c1 = count(1);
  a.probe.observe(50e6); // due 50 ms ago: at 0 workers
  assert.equal(count(1), c1, 'not at the new size');
  assert.equal(a.sizeRow(0).unsettled, u0 + 1);
  await new Promise((r) => setTimeout(r, 20));
  const c1b = count(1);
  a.probe.observe(1e6); // due 1 ms ago: at 1 worker
  assert.ok(count(1) > c1b, 'a tick due after the resize counts there');
});

// A reset empties the sizes rows and their served histograms, as the Go
// session's Reset does: a sweep's hold after it reads that hold alone.
test('reset starts the sizes rows and their served again', async (t) => {
  const a = new Agent({ intervalMs: 50, log: () => {} });
  t.after(() => a.close());
  const base = await listen(t, (req, res) => res.end('app\n'));
  await get(base + '/a');
  await get(base + '/a');
  const before = a.sample(a.reading()).sizes.find((r) => r.workers === 0);
  assert.equal(before.served['/a'].count, 2);
  a.apply({ kind: 'reset' });
  await get(base + '/a');
  const after = a.sample(a.reading()).sizes;
  assert.equal(after.length, 1, 'one row, the size in force');
  assert.equal(after[0].served['/a'].count, 1, 'the request after the reset alone');
});

// The stream lists the actions the agent carries out now: a resize only
// once it has a pool to resize.
test('the stream lists the actions the agent takes: no resize without a pool', async (t) => {
  const path = require('node:path');
  const { Pool } = require('../lib/pool');
  const a = new Agent({ intervalMs: 50, log: () => {}, http: false });
  t.after(() => a.close());
  assert.deepEqual(a.sample(a.reading()).actions, ['reset']);
  const pool = a.watch(new Pool({ filename: path.join(__dirname, '..', 'testdata', 'echo.js'), size: 0, watch: false }));
  t.after(() => pool.close());
  assert.deepEqual(a.sample(a.reading()).actions, ['set_workers', 'add_workers', 'reset']);
});

// The served histograms are bounded across rows: past MAX_SERVED a new
// route at a size is not filed, one already filed still counts.
test('sizes[].served holds at most MAX_SERVED histograms', (t) => {
  const { MAX_SERVED } = require('../lib/agent');
  const a = new Agent({ intervalMs: 50, log: () => {} });
  t.after(() => a.close());
  const rows = [0, 1, 2].map((n) => a.sizeRow(n));
  a.sizeNow();
  const tag = (row) => ({ row, gen: a.sizeGen });
  for (let i = 0; i < MAX_SERVED + 10; i++) a.routes.served(`/r${i}`, tag(rows[i % 3]), 1e6);
  a.routes.served('/r0', tag(rows[0]), 2e6);
  const held = rows.reduce((n, r) => n + r.served.size, 0);
  assert.equal(held, MAX_SERVED);
  assert.equal(rows[0].served.get('/r0').summary().count, 2);
});

test('a path not in clean form is unmatched, and once a router names a route, a request with no pattern is too', () => {
  const seen = { patterned: false };
  const at = (path, code, route) => routes.routeOf(route ? { route: { path: route }, baseUrl: '' } : {}, path, code, undefined, seen);
  assert.equal(at('/a', 200), '/a');
  assert.equal(at('/a/b/', 200), '/a/b/');
  for (const p of ['//evil.com/x', '/a/../b', '/a/./b', '']) assert.equal(at(p, 301), routes.UNMATCHED, p);
  assert.equal(seen.patterned, false);
  assert.equal(at('/items/7', 200, '/items/:id'), '/items/:id');
  assert.equal(seen.patterned, true);
  assert.equal(at('/free', 200), routes.UNMATCHED, 'a clean path with no pattern once a pattern was seen');
  const table = new routes.Routes(5000, () => 0);
  for (let i = 0; i < 100; i++) table.record(at(`//j${i}/`, 307), 307, 0, 0);
  assert.deepEqual(table.read().map((e) => e.route), [routes.UNMATCHED]);
});
