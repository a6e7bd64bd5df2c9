package shape

import (
	"runtime"
	"testing"
	"time"
)

// TestBusyReadsProc checks that Busy measures rather than guesses: the run
// delay is readable and grows (or stays) across a spin, and the answer is
// either "" or a reason naming what was measured.
func TestBusyReadsProc(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, ok := threadRunDelay()
	if !ok {
		t.Skip("no /proc/thread-self/schedstat here")
	}
	why := Busy(50 * time.Millisecond)
	b, _ := threadRunDelay()
	if b < a {
		t.Fatalf("run delay went back: %v then %v", a, b)
	}
	if why != "" && len(why) < 10 {
		t.Fatalf("reason too short to say what was measured: %q", why)
	}
}
