package lifecycle

import (
	"testing"
	"time"
)

// closer is a session whose Close returns at once, or never (hang).
type closer struct{ hang bool }

func (c closer) Close() {
	if c.hang {
		select {}
	}
}

// CloseWithin waits for a Close that finishes, gives up on one that
// hangs after the grace, and ends the wait at once on a panic.
func TestCloseSessionIsBounded(t *testing.T) {
	if !CloseWithin(closer{}, time.Minute, nil) {
		t.Error("a quick Close: not closed")
	}
	start := time.Now()
	if CloseWithin(closer{hang: true}, 50*time.Millisecond, nil) {
		t.Error("a hung Close: closed")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a hung Close held the stop %v (grace 50ms)", d)
	}
	crashed := make(chan struct{})
	close(crashed)
	if CloseWithin(closer{hang: true}, time.Hour, crashed) {
		t.Error("a panic meanwhile: closed")
	}
}
