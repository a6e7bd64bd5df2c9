package main

import (
	"testing"
	"time"
)

// closer is a session whose Close takes d (forever when d < 0).
type closer struct{ d time.Duration }

func (c closer) Close() {
	if c.d < 0 {
		select {}
	}
	time.Sleep(c.d)
}

// closeSession waits for a Close that finishes, gives up on one that
// hangs after the grace, and ends the wait at once on a panic.
func TestCloseSessionIsBounded(t *testing.T) {
	if !closeSession(closer{0}, time.Minute, nil) {
		t.Error("a quick Close: not closed")
	}
	start := time.Now()
	if closeSession(closer{-1}, 50*time.Millisecond, nil) {
		t.Error("a hung Close: closed")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a hung Close held the stop %v (grace 50ms)", d)
	}
	crashed := make(chan struct{})
	close(crashed)
	if closeSession(closer{-1}, time.Hour, crashed) {
		t.Error("a panic meanwhile: closed")
	}
}
