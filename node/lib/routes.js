'use strict';
// The program's HTTP routes, as the Go agent's middleware records them
// (docs/json-lines.md's `endpoints`): every request an http or https
// server of this process answers, its latency from the 'request' event
// to the response's 'finish' and its status class, by route. No code
// change in the program: hook() wraps http.Server's and https.Server's
// emit, the one place every framework built on node:http (Express, Koa,
// plain handlers) receives a request, and the one that can answer the
// agent's own paths on the program's server.
const http = require('node:http');
const https = require('node:https');
const { posix } = require('node:path');
const { Recorder, toJSON } = require('./hist');

// MAX_ROUTES routes get figures of their own; a request of a route first
// seen after them counts under OTHER (OTHER and UNMATCHED are not among
// them). Each route holds one windowed histogram: 21.5 KiB for each of
// its ten slots in use, its window and its total, up to 258 KiB, so the
// table holds at most about 17 MiB.
const MAX_ROUTES = 64;
// MAX_ROUTE_BYTES bounds a label (UTF-8): a longer path is cut there.
const MAX_ROUTE_BYTES = 128;
const OTHER = 'other';
const UNMATCHED = 'unmatched';

// Routes is the route table: label -> {lat, status}.
class Routes {
  // windowMs: the window of each route's latency; now(): ms
  // (performance.now by default).
  constructor(windowMs, now) {
    this.windowMs = windowMs;
    this.now = now || (() => performance.now());
    this.startedAt = this.now();
    this.routes = new Map();
    this.named = 0;
    this.patterned = false; // a request matched a router's pattern (routeOf)
    // arrive() is called as a request arrives; what it returns comes back
    // as tag to served(label, tag, ns) when the response ends (the agent
    // files it under the size row in force at arrival). Both optional.
    this.arrive = null;
    this.served = null;
  }

  // record counts one response with status code, startMs to endMs, under
  // label (OTHER once MAX_ROUTES others are kept).
  // It returns the label recorded under.
  record(label, code, startMs, endMs) {
    let rt = this.routes.get(label);
    if (!rt) {
      const special = label === OTHER || label === UNMATCHED;
      if (!special && this.named >= MAX_ROUTES) return this.record(OTHER, code, startMs, endMs);
      if (!special) this.named++;
      rt = { lat: new Recorder(this.windowMs, this.now), status: [0, 0, 0, 0, 0] };
      this.routes.set(label, rt);
    }
    rt.lat.record((endMs - startMs) * 1e6);
    rt.status[statusClass(code)]++;
    return label;
  }

  // read is every route's figures in order of route (UTF-8 bytes, as Go
  // sorts), or null while no request was recorded.
  read() {
    if (this.routes.size === 0) return null;
    const age = this.now() - this.startedAt;
    const out = [];
    for (const [route, rt] of this.routes) {
      const { summary, spanMs } = rt.lat.windowSpan();
      const span = Math.min(spanMs, age);
      const [s1, s2, s3, s4, s5] = rt.status;
      out.push({
        route,
        count: s1 + s2 + s3 + s4 + s5,
        rate_per_s: span > 0 ? Math.round((summary.count / (span / 1e3)) * 1000) / 1000 : 0,
        latency: toJSON(summary),
        status: { '1xx': s1, '2xx': s2, '3xx': s3, '4xx': s4, '5xx': s5 },
      });
    }
    return out.sort((a, b) => Buffer.compare(Buffer.from(a.route), Buffer.from(b.route)));
  }
}

// statusClass is code's index in a route's status: 1xx..5xx, 600..999 as
// 5xx (and below 100 as 1xx), as the Go agent counts them.
function statusClass(code) {
  return Math.min(Math.max(Math.floor(code / 100), 1), 5) - 1;
}

// cut is label cut to MAX_ROUTE_BYTES of UTF-8, at a character's start.
function cut(label) {
  if (label.length <= MAX_ROUTE_BYTES / 3 || Buffer.byteLength(label) <= MAX_ROUTE_BYTES) return label;
  const b = Buffer.from(label);
  let n = MAX_ROUTE_BYTES;
  while (n > 0 && (b[n] & 0xc0) === 0x80) n--;
  return b.subarray(0, n).toString();
}

// routeOf is a finished request's route: the Express route pattern
// (base + req.route.path, base req.baseUrl when not given) when the
// router matched one (and then seen.patterned is set, when seen is
// given); else UNMATCHED for a 404 or 405, for a path not in clean form
// (path.posix.normalize: "//x/", "/a/../b"), or for any request once
// seen.patterned (a router that names its routes: its redirects and
// not-founds are no routes); else path (the URL without its query, as it
// arrived), cut to MAX_ROUTE_BYTES. So a client cannot fill the route
// table with paths of its choosing behind a router.
function routeOf(req, path, code, base, seen) {
  const r = req.route;
  if (typeof base !== 'string') base = typeof req.baseUrl === 'string' ? req.baseUrl : '';
  if (r && typeof r.path === 'string') {
    if (seen) seen.patterned = true;
    return cut(base + r.path);
  }
  if (code === 404 || code === 405 || (seen && seen.patterned) || !clean(path)) return UNMATCHED;
  return cut(path);
}

// clean says whether p is in the form path.posix.normalize gives ("/a/b/"
// is, "//a", "/a/./b" and "" are not), as the Go agent's clean.
function clean(p) {
  return p !== '' && posix.normalize(p) === p;
}

// OWN marks a server whose requests are not the program's (the agent's
// own listener): they pass through unrecorded.
const OWN = Symbol.for('offtop.ownServer');

// handler is what the wrapped emit calls for each request: set by the
// running agent, null when none.
let handler = null;
let active = null; // the o of the last serve
let hooked = false;

// hook wraps emit of http.Server and https.Server (once) so every
// 'request' goes through the handler set by serve. Safe twice.
function hook() {
  if (hooked) return;
  hooked = true;
  for (const proto of [http.Server.prototype, https.Server.prototype]) {
    const emit = proto.emit;
    proto.emit = function emit2(event, req, res) {
      if ((event !== 'request' && event !== 'upgrade') || handler === null || this[OWN]) return emit.apply(this, arguments);
      if (event === 'upgrade') return upgrade(this, emit, arguments, req);
      return handler(this, emit, arguments, req, res);
    };
  }
}

// upgrade passes an 'upgrade' event (a connection the program takes
// over: a WebSocket) to the program's listeners and, when one took it,
// records it as a 101 under its path (1xx, as the Go agent counts a
// hijacked connection), its latency the listeners' own run. The agent's
// paths pass unrecorded.
function upgrade(server, emit, args, req) {
  const o = active;
  const url = typeof req.url === 'string' ? req.url : '';
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  if (o === null || path.startsWith(o.prefix)) return emit.apply(server, args);
  const start = o.routes.now();
  const took = emit.apply(server, args);
  if (took) o.routes.record(routeOf(req, path, 101, undefined, o.routes), 101, start, o.routes.now());
  return took;
}

// serve hooks the servers and sends each request to o: o.routes (a
// Routes) records the program's, o.handle(req, res) answers those under
// o.prefix (the agent's paths) instead of the program. serve(null) lets
// every request through untouched.
function serve(o) {
  active = o;
  if (o === null) {
    handler = null;
    return;
  }
  hook();
  const { routes, prefix } = o;
  handler = (server, emit, args, req, res) => {
    const url = typeof req.url === 'string' ? req.url : '';
    const q = url.indexOf('?');
    const path = q >= 0 ? url.slice(0, q) : url;
    if (path.startsWith(prefix)) {
      o.handle(req, res);
      return true;
    }
    const start = routes.now();
    const base = mountOf(req);
    const tag = routes.arrive ? routes.arrive() : undefined;
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      const now = routes.now();
      const label = routes.record(routeOf(req, path, res.statusCode, base(), routes), res.statusCode, start, now);
      if (routes.served) routes.served(label, tag, (now - start) * 1e6);
    };
    res.once('finish', end);
    res.once('close', end); // a connection that ended before the response did
    return emit.apply(server, args);
  };
}

// mountOf makes req.route an accessor that keeps req.baseUrl as it was
// when the route was set (the router's mount: Express restores baseUrl
// when a request leaves a router by next(err), a thrown handler's path,
// and leaves req.route as it was); it returns a function giving that
// mount, undefined when req.route was never set or could not be watched.
function mountOf(req) {
  let route;
  let base;
  try {
    Object.defineProperty(req, 'route', {
      configurable: true,
      enumerable: true,
      get() {
        return route;
      },
      set(v) {
        route = v;
        base = typeof this.baseUrl === 'string' ? this.baseUrl : '';
      },
    });
  } catch {
    return () => undefined;
  }
  return () => base;
}

// serving is the o of the last serve (null: none).
function serving() {
  return active;
}

module.exports = { Routes, serve, serving, hook, routeOf, cut, statusClass, OWN, MAX_ROUTES, MAX_ROUTE_BYTES, OTHER, UNMATCHED };
