// Package timerfd sleeps to the kernel timer's precision without a thread
// blocked: a Linux timerfd read through the runtime's network poller. The
// Loop probe and the load's pacer wait on one, because a runtime timer
// wakes up to a millisecond late on an idle process (docs/internals.md).
package timerfd
