//go:build offtop_testhooks

package main

import (
	"os"
	"time"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/ui"
)

// Test-only panics, compiled only with -tags offtop_testhooks (the
// end-to-end tests build such a binary; the shipped one has the no-op
// twins of testhooks_off.go and reads no such variable):
// OFFTOP_TEST_PANIC=ui panics in the UI's sample read (a Cmd of the model)
// 1s into the run; =samples panics in the reader of the session's Samples
// stream (the summary's goroutine in the TUI, the main loop headless) 1s
// in. The end-to-end tests use them to check that the terminal survives a
// panic.
const testPanicEnv = "OFFTOP_TEST_PANIC"

// testPanicAfter is how far into the run an injected panic fires.
const testPanicAfter = time.Second

// panicSource is the session seen by the UI, panicking in Snapshot after
// a time (OFFTOP_TEST_PANIC=ui).
type panicSource struct {
	ui.Source
	at time.Time
}

func (p panicSource) Snapshot() session.Snapshot {
	if time.Now().After(p.at) {
		panic(testPanicEnv + "=ui: a panic injected in the UI's sample read")
	}
	return p.Source.Snapshot()
}

// samplesPanicHook returns the hook the Samples reader calls per sample:
// nil unless OFFTOP_TEST_PANIC=samples.
func samplesPanicHook(start time.Time) func() {
	if os.Getenv(testPanicEnv) != "samples" {
		return nil
	}
	return func() {
		if time.Since(start) > testPanicAfter {
			panic(testPanicEnv + "=samples: a panic injected in the Samples reader")
		}
	}
}

// uiSource is src, or src panicking after a time with OFFTOP_TEST_PANIC=ui.
func uiSource(src ui.Source, start time.Time) ui.Source {
	if os.Getenv(testPanicEnv) == "ui" {
		return panicSource{Source: src, at: start.Add(testPanicAfter)}
	}
	return src
}
