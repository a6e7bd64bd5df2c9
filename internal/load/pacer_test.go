package load

import (
	"runtime"
	"testing"
	"time"
)

// Where there is a timerfd, Pace waits for the due time itself, never
// returning before it, and answers no wait; close ends a wait at once and
// stops the attack.
func TestPaceWaitsOnItsTimer(t *testing.T) {
	p := newPacer(time.Hour, time.Second)
	if p.fd == nil {
		if runtime.GOOS == "linux" {
			t.Fatal("no timerfd on linux")
		}
		t.Skip("no timerfd here: vegeta sleeps")
	}
	p.base = time.Now()
	// Request 1 of a 2 ms interval at elapsed 0 is due in 2 ms.
	p.interval = 2 * time.Millisecond
	start := time.Now()
	if wait, stop := p.Pace(0, 1); wait != 0 || stop {
		t.Fatalf("Pace = %v, %v; want 0, false after waiting", wait, stop)
	}
	if got := time.Since(start); got < 2*time.Millisecond {
		t.Fatalf("Pace returned after %v, before the 2ms due time", got)
	}
	// Overdue: no wait, no sleep.
	if wait, stop := p.Pace(time.Second, 1); wait >= 0 || stop {
		t.Fatalf("overdue Pace = %v, %v; want a negative wait, false", wait, stop)
	}
	// A wait of an hour ended by close.
	p.interval = time.Hour
	done := make(chan bool, 1)
	go func() { _, stop := p.Pace(0, 1); done <- stop }()
	p.close()
	select {
	case stop := <-done:
		if !stop {
			t.Fatal("Pace ended by close without stop")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("close did not end Pace's wait")
	}
	if _, stop := p.Pace(0, 2); !stop {
		t.Fatal("Pace after close: no stop")
	}
}
