package pool_test

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// A task that returns an error is counted Failed and its error goes to
// done as it is; the worker is not replaced (only a panic replaces it).
func ExamplePool_SubmitErr() {
	p, _ := pool.New(pool.Options{Size: 1})
	defer p.Close()
	done := make(chan error, 1)
	_ = p.SubmitErr(func() error { return errors.New("no such user") }, func(err error) { done <- err })
	fmt.Println(<-done)
	s := p.Stats()
	fmt.Println(s.Failed, s.Replaced)
	// Output:
	// no such user
	// 1 0
}

// A task whose context ends while it waits for a worker never runs: it
// is counted Canceled and its done gets the context's error at once.
func ExamplePool_SubmitContext() {
	p, _ := pool.New(pool.Options{Size: 1})
	defer p.Close()
	release, started := make(chan struct{}), make(chan struct{})
	_ = p.Go(func() { close(started); <-release }) // keeps the one worker busy
	<-started

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	_ = p.SubmitContext(ctx, func(ctx context.Context) error {
		fmt.Println("never printed")
		return nil
	}, func(err error) { done <- err })
	cancel()
	fmt.Println(<-done)
	close(release)

	c := p.Counts()
	fmt.Println(c.Canceled, c.Submitted == c.Completed+c.Failed+c.TimedOut+c.Canceled+c.Running+c.Queued)
	// Output:
	// context canceled
	// 1 true
}

// DoContext runs a task with a context and returns its error.
func ExamplePool_DoContext() {
	p, _ := pool.New(pool.Options{Size: 2})
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := p.DoContext(ctx, func(ctx context.Context) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
			return errors.New("lookup failed")
		}
	})
	fmt.Println(err, p.Stats().Failed)
	// Output: lookup failed 1
}

// Utilization gives each worker's busy share of the time between two
// Stats, so a caller need not difference Busy.
func ExampleUtilization() {
	p, _ := pool.New(pool.Options{Size: 2})
	defer p.Close()
	prev := p.Stats()
	_ = p.Do(func() {
		for t := time.Now(); time.Since(t) < 20*time.Millisecond; {
		}
	})
	busy, _ := pool.Utilization(prev, p.Stats())
	fmt.Println(len(busy), busy[0] > 0, busy[1] == 0)
	// Output: 2 true true
}
