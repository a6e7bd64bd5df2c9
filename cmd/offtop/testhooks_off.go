//go:build !offtop_testhooks

package main

import (
	"time"

	"github.com/offtop/offtop/internal/ui"
)

// The shipped build: no test-only panic hooks (see testhooks.go, built
// with -tags offtop_testhooks). The run calls these and gets nothing.

// samplesPanicHook returns nil: the Samples reader calls no hook.
func samplesPanicHook(time.Time) func() { return nil }

// uiSource returns src unchanged.
func uiSource(src ui.Source, _ time.Time) ui.Source { return src }
