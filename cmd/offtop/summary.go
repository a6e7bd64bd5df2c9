package main

import "github.com/offtop/offtop/internal/report"

// summary is what offtop prints when a run ends (--no-summary turns it
// off).
type summary = report.Summary
