package looplag_test

import (
	"fmt"
	"time"

	"github.com/offtop/offtop/looplag"
)

// Watch your own loop: here a goroutine that runs callbacks from a
// channel, blocked once for 200 ms.
func Example() {
	work := make(chan func(), 1024)
	go func() {
		for fn := range work {
			fn()
		}
	}()
	defer close(work)
	post := func(fn func()) { work <- fn }

	m := looplag.Start(post, looplag.Options{Resolution: 10 * time.Millisecond})
	time.Sleep(50 * time.Millisecond)
	post(func() { time.Sleep(200 * time.Millisecond) }) // the loop is blocked
	time.Sleep(300 * time.Millisecond)
	m.Stop()

	s := m.Stats()
	fmt.Println("max at least 150ms:", s.CorrectedAll.Max >= 150*time.Millisecond)
	fmt.Println("corrected counts the missed samples:", s.CorrectedAll.Count > s.RawAll.Count)
	// Output:
	// max at least 150ms: true
	// corrected counts the missed samples: true
}
