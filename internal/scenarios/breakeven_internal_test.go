package scenarios

import (
	"crypto/sha256"
	"testing"
	"time"
)

// TestChainHash: one round is plain SHA-256; round k hashes digest k-1 then
// the payload again, so R rounds cost R x the CPU at the same size.
func TestChainHash(t *testing.T) {
	p := []byte("offtop payload")
	never := func() bool { return false }
	d1, ok := chainHash(p, 1, never)
	if !ok || d1 != sha256.Sum256(p) {
		t.Fatalf("1 round: %x, %v", d1, ok)
	}
	d2, _ := chainHash(p, 2, never)
	if want := sha256.Sum256(append(d1[:], p...)); d2 != want {
		t.Errorf("2 rounds: %x, want %x", d2, want)
	}
	if _, ok := chainHash(p, 64, func() bool { return true }); ok {
		t.Error("abandoned chain reported ok")
	}
}

// TestBreakevenEstimate is seed 002's model (docs/seeds.md) with a warm
// pool: inline = 32c, pool = (c+o)*32/P; o = wall*P/32 - c, and break-even
// c* = o/(P-1).
func TestBreakevenEstimate(t *testing.T) {
	ms := time.Millisecond
	// 32 tasks of 1ms CPU on 2 workers in 20ms of wall: o = 20*2/32 - 1 = 0.25ms.
	o, be, ok := breakevenEstimate(20*ms, ms, 2, 32)
	if !ok || o != 250*time.Microsecond || be != 250*time.Microsecond {
		t.Errorf("P=2: overhead %v, break-even %v, %v", o, be, ok)
	}
	if o, _, _ := breakevenEstimate(10*ms, 2*ms, 2, 32); o != 0 {
		t.Errorf("overhead clamps at 0, got %v", o)
	}
	if _, _, ok := breakevenEstimate(20*ms, ms, 1, 32); ok {
		t.Error("one worker never breaks even, but the estimate says it does")
	}
}

func TestArrivalsPacing(t *testing.T) {
	for _, rate := range []int{10, 40, 160, 333} {
		for k := int64(1); k < 1000; k += 37 {
			if got := arrivalsDue(ioDueAt(k, rate), rate); got < k {
				t.Fatalf("rate %d: arrival %d due at %v, but only %d due then", rate, k, ioDueAt(k, rate), got)
			}
			if got := arrivalsDue(ioDueAt(k, rate)-1, rate); got >= k {
				t.Fatalf("rate %d: arrival %d due before its time", rate, k)
			}
		}
	}
}
