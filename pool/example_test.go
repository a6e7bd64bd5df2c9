package pool_test

import (
	"fmt"

	"github.com/offtop/offtop/pool"
)

func Example() {
	p, err := pool.New(pool.Options{Size: 2})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	sum := 0
	for i := 1; i <= 10; i++ {
		_ = p.Do(func() { sum += i }) // Do waits: no race on sum
	}
	_ = p.Resize(4)
	s := p.Stats()
	fmt.Println(sum, s.Size, s.Completed, s.Submitted == s.Completed+s.Failed+s.TimedOut+s.Canceled+s.Running+s.Queued)
	// Output: 55 4 10 true
}

// A task that panics is counted Failed and its worker replaced; the pool
// goes on.
func ExamplePool_Submit() {
	p, _ := pool.New(pool.Options{Size: 1})
	defer p.Close()
	done := make(chan error, 1)
	_ = p.Submit(func() { panic("boom") }, func(err error) { done <- err })
	fmt.Println(<-done)
	s := p.Stats()
	fmt.Println(p.Do(func() {}), s.Failed, s.Replaced, s.Workers[0].Failed)
	// Output:
	// pool: task panicked: boom
	// <nil> 1 1 1
}
