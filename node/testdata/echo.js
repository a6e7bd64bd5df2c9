'use strict';
// echo(arg) returns arg after busy-waiting arg.ms (default 0) ms.
module.exports = function echo(arg) {
  const end = performance.now() + (arg.ms || 0);
  while (performance.now() < end);
  if (arg.fail) throw new Error('asked to fail');
  return arg;
};
