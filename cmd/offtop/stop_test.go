package main

import (
	"os"
	"syscall"
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
// hangs after the grace, and ends the wait at once on a signal.
func TestCloseSessionIsBounded(t *testing.T) {
	if _, ok := closeSession(closer{0}, time.Minute, nil, nil); !ok {
		t.Error("a quick Close: not closed")
	}
	start := time.Now()
	if _, ok := closeSession(closer{-1}, 50*time.Millisecond, nil, nil); ok {
		t.Error("a hung Close: closed")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a hung Close held the stop %v (grace 50ms)", d)
	}
	sig := make(chan os.Signal, 1)
	sig <- syscall.SIGTERM
	again, ok := closeSession(closer{-1}, time.Hour, sig, nil)
	if ok || again != syscall.SIGTERM {
		t.Errorf("a second signal: %v, closed %v", again, ok)
	}
	crashed := make(chan struct{})
	close(crashed)
	if _, ok := closeSession(closer{-1}, time.Hour, nil, crashed); ok {
		t.Error("a panic meanwhile: closed")
	}
}
