'use strict';
// echo(arg) returns arg after busy-waiting arg.ms (default 0) ms; with
// arg.fail it throws, with arg.exit its thread exits.
module.exports = function echo(arg) {
  const end = performance.now() + (arg.ms || 0);
  while (performance.now() < end);
  if (arg.fail) throw new Error('asked to fail');
  if (arg.exit) process.exit(1);
  return arg;
};
