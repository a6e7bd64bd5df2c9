'use strict';
// The oldest Node the agent runs on: package.json's engines.node (">=X.Y").
// Plain enough for any Node to load, so an old one can say it is old.
const range = require('../package.json').engines.node;
const m = /^>=(\d+)\.(\d+)$/.exec(range);
if (!m) throw new Error(`offtop agent: package.json engines.node ${JSON.stringify(range)}: want ">=MAJOR.MINOR"`);
const floor = { major: Number(m[1]), minor: Number(m[2]), text: `${m[1]}.${m[2]}` };

// older reports whether version ("v18.13.0" or "18.13.0") is below floor.
function older(version) {
  const [major, minor] = String(version).replace(/^v/, '').split('.').map(Number);
  return major < floor.major || (major === floor.major && minor < floor.minor);
}

module.exports = { floor, older };
