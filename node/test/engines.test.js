'use strict';
// The Node floor: package.json's engines, which the preload and .ci/run read.
const test = require('node:test');
const assert = require('node:assert/strict');
const { floor, older } = require('../lib/engines');

test('engines: the floor is package.json\'s, this Node meets it, older ones do not', () => {
  assert.equal(floor.text, require('../package.json').engines.node.replace('>=', ''));
  assert.equal(older(process.version), false);
  assert.equal(older(`v${floor.major}.${floor.minor}.0`), false);
  assert.equal(older(`v${floor.major}.${floor.minor - 1}.9`), floor.minor > 0);
  assert.equal(older(`v${floor.major - 1}.99.0`), true);
  assert.equal(older(`v${floor.major + 1}.0.0`), false);
});

// The preload on a Node below the floor (process.version made older
// before it loads): one line, exit 2, the program not run.
test('engines: an older Node is one line, exit 2', () => {
  const { spawnSync } = require('node:child_process');
  const path = require('node:path');
  const r = spawnSync(process.execPath, ['-r', path.join(__dirname, '..', 'testdata', 'old-node.js'), '-r', path.join(__dirname, '..', 'preload.js'), '-e', 'console.log("ran")'], { encoding: 'utf8', env: { ...process.env, OFFTOP_FAKE_VERSION: 'v16.20.2' } });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `offtop agent: Node v16.20.2 is older than ${floor.text}, the oldest the agent runs on\n`);
});
