package pool

import (
	"math/rand/v2"
	"testing"
)

// TestFifoKeepsOrder pushes and pops at random against a slice, across
// many chunk boundaries, and checks every pop, len and full against it.
func TestFifoKeepsOrder(t *testing.T) {
	var q fifo
	var model []*task
	tasks := make([]task, 10*chunkLen)
	next := 0
	r := rand.New(rand.NewPCG(1, 2))
	for step := 0; step < 20000; step++ {
		if r.IntN(100) < 55 && next < len(tasks) {
			q.push(&tasks[next])
			model = append(model, &tasks[next])
			next++
		} else {
			got := q.pop()
			var want *task
			if len(model) > 0 {
				want, model = model[0], model[1:]
			}
			if got != want {
				t.Fatalf("step %d: pop = %p, want %p", step, got, want)
			}
		}
		if q.len() != len(model) {
			t.Fatalf("step %d: len = %d, want %d", step, q.len(), len(model))
		}
		if next == len(tasks) && len(model) == 0 {
			next = 0
		}
	}
}

// TestFifoReusesChunks: a queue that fills and drains over and over keeps
// at most one chunk beside those in use, and full says when a push would
// allocate.
func TestFifoReusesChunks(t *testing.T) {
	var q fifo
	if !q.full() {
		t.Fatal("empty queue with no chunk: full = false, want true")
	}
	q.give(new(chunk))
	if q.full() {
		t.Fatal("after give: full = true, want false")
	}
	tasks := make([]task, 3*chunkLen)
	seen := map[*chunk]bool{}
	for round := 0; round < 5; round++ {
		for i := range tasks {
			q.push(&tasks[i])
			seen[q.tail] = true
		}
		for range tasks {
			q.pop()
		}
	}
	// 3 chunks in use at the peak, the given one among them: no more.
	if len(seen) > 3 {
		t.Fatalf("%d chunks used for a queue of at most 3 chunks, want <= 3", len(seen))
	}
	if q.len() != 0 || q.pop() != nil {
		t.Fatal("drained queue not empty")
	}
}
