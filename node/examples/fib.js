'use strict';
// fib(n), the naive way: CPU work of a known size (fib(30) is ~10 ms,
// fib(37) ~300 ms on a 2020s core). The pool runs it on a worker.
function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
module.exports = fib;
