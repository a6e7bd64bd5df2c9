package latency_test

import (
	"fmt"
	"time"

	"github.com/offtop/offtop/latency"
)

// A Summary with no data reads "n/a", not zero.
func ExampleSummary_Known() {
	for _, s := range []latency.Summary{{}, {P99: 12 * time.Millisecond, Count: 40}} {
		if !s.Known() {
			fmt.Println("p99 n/a")
			continue
		}
		fmt.Println("p99", s.P99)
	}
	// Output:
	// p99 n/a
	// p99 12ms
}
