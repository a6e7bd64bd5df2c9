package ants_test

import (
	"sync"
	"testing"
	"time"

	"github.com/panjf2000/ants/v2"

	offtopants "github.com/offtop/offtop/contrib/ants"
)

func TestMeterCountsAndTunes(t *testing.T) {
	p, err := ants.NewPool(2)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	m := offtopants.Meter(p)
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		if err := offtopants.Submit(p, m, wg.Done); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second) // a task's end is counted after wg.Done, as it returns
	for m.Stats().Completed < 50 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	s := m.Stats()
	if s.Size != 2 || s.Completed != 50 || s.Submitted != 50 || len(s.Workers) != 2 {
		t.Fatalf("stats %+v", s)
	}
	if err := m.Resize(4); err != nil || p.Cap() != 4 {
		t.Fatalf("Resize(4): %v, cap %d", err, p.Cap())
	}
	if err := m.Resize(0); err == nil || p.Cap() != 4 {
		t.Fatalf("Resize(0): %v, cap %d (ants has no inline)", err, p.Cap())
	}
}
