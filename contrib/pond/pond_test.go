package pond_test

import (
	"sync"
	"testing"

	"github.com/alitto/pond/v2"

	offtoppond "github.com/offtop/offtop/contrib/pond"
)

func TestMeterCountsAndResizes(t *testing.T) {
	p := pond.NewPool(2)
	defer p.StopAndWait()
	m := offtoppond.Meter(p)
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		if err := offtoppond.Go(p, m, wg.Done); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	s := m.Stats()
	if s.Size != 2 || s.Submitted != 50 || len(s.Workers) != 2 {
		t.Fatalf("stats %+v", s)
	}
	if err := m.Resize(3); err != nil || p.MaxConcurrency() != 3 {
		t.Fatalf("Resize(3): %v, max %d", err, p.MaxConcurrency())
	}
}
