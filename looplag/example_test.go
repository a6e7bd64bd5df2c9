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
	// samples waits until the probe has taken n samples in all.
	samples := func(n int64) {
		for m.Stats().RawAll.Count < n {
			time.Sleep(10 * time.Millisecond)
		}
	}
	samples(1)
	blocked := make(chan struct{})
	post(func() { time.Sleep(200 * time.Millisecond); close(blocked) }) // the loop is blocked
	<-blocked
	samples(m.Stats().RawAll.Count + 2) // the late sample and one after
	m.Stop()

	s := m.Stats()
	fmt.Println("max at least 150ms:", s.CorrectedAll.Max >= 150*time.Millisecond)
	fmt.Println("corrected counts the missed samples:", s.CorrectedAll.Count > s.RawAll.Count)
	// Output:
	// max at least 150ms: true
	// corrected counts the missed samples: true
}
