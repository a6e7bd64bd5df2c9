package main

import (
	"io"

	"github.com/offtop/offtop/internal/crash"
)

// crasher is the crash handler of one run.
type crasher = crash.Handler

func newCrasher(stderr io.Writer) *crasher { return crash.NewHandler(stderr, version) }

// reportURL is where a panic should be reported.
const reportURL = crash.ReportURL
