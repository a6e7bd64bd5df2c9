//go:build !linux

package pool

import (
	"errors"
	"testing"
)

func TestPriorityUnavailable(t *testing.T) {
	if _, err := New(Options{Priority: true}); !errors.Is(err, ErrPriorityUnavailable) {
		t.Fatalf("New with Priority: %v, want ErrPriorityUnavailable", err)
	}
	p, err := New(Options{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.SetPriority(true); !errors.Is(err, ErrPriorityUnavailable) || p.Priority() {
		t.Fatalf("SetPriority(true): %v, on %v; want ErrPriorityUnavailable, off", err, p.Priority())
	}
}
