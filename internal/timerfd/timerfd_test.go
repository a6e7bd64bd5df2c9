package timerfd

import (
	"errors"
	"runtime"
	"testing"
	"time"
)

func TestSleepNeverEarly(t *testing.T) {
	tm, err := New()
	if runtime.GOOS != "linux" {
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("New on %s: %v, want ErrUnsupported", runtime.GOOS, err)
		}
		return
	}
	if err != nil {
		t.Skipf("no timerfd here: %v", err)
	}
	defer tm.Close()
	for _, d := range []time.Duration{0, 1, time.Microsecond, 100 * time.Microsecond, 2 * time.Millisecond} {
		for range 20 {
			start := time.Now()
			if err := tm.Sleep(d); err != nil {
				t.Fatal(err)
			}
			if got := time.Since(start); got < d {
				t.Fatalf("Sleep(%v) returned after %v", d, got)
			}
		}
	}
	tm.Close()
	if err := tm.Sleep(time.Millisecond); err == nil {
		t.Fatal("Sleep on a closed Timer: no error")
	}
}

func TestCloseWakesASleep(t *testing.T) {
	tm, err := New()
	if err != nil {
		t.Skipf("no timerfd here: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- tm.Sleep(time.Hour) }()
	// The Sleep may not have armed yet: Close before or during it must
	// both end it with an error.
	tm.Close()
	if err := <-done; err == nil {
		t.Fatal("Sleep(1h) ended without an error by Close")
	}
}
