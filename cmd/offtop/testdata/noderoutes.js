'use strict';
// A Node service with no offtop code in it, for the tests of the Node
// agent's routes (run with node --require node/preload.js): /ping answers
// at once, /wait after a 20 ms timer, anything else 404. It writes
// "listening HOST:PORT" on stdout once it serves on 127.0.0.1 (port 0:
// a free one, or argv[2]).
const http = require('node:http');

const server = http.createServer((req, res) => {
  const path = req.url.split('?')[0];
  if (path === '/ping') return res.end('pong\n');
  if (path === '/wait') return setTimeout(() => res.end('waited\n'), 20);
  res.statusCode = 404;
  res.end('not found\n');
});
server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => {
  process.stdout.write(`listening 127.0.0.1:${server.address().port}\n`);
});
