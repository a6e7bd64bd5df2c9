// Command offtop runs a workload on a resizable worker pool beside a
// single-goroutine Loop and shows, live, what the pool does to everything
// else in the process. See README.md.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
