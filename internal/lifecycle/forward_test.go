package lifecycle

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/testkit"
)

// TestForwardSamplesAtMostOneAGap: attached with --interval 1s, samples
// every 250 ms make one redraw a second, the first at once; signals that
// come while one waits make one send; gap 0 sends each as it comes.
func TestForwardSamplesAtMostOneAGap(t *testing.T) {
	clk := testkit.NewClock()
	sampled, stop := make(chan struct{}, 1), make(chan struct{})
	sent := make(chan time.Time, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ForwardSamples(sampled, stop, time.Second, clk, func() { sent <- clk.Now() })
	}()
	signal := func() { // as runTUI's collector: never blocks
		select {
		case sampled <- struct{}{}:
		default:
		}
	}
	at := func(want time.Duration) {
		t.Helper()
		select {
		case got := <-sent:
			if d := got.Sub(testkit.Start); d != want {
				t.Fatalf("a send at %v, want %v", d, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no send; want one at %v", want)
		}
	}
	signal()
	at(0) // the first at once
	for range 3 {
		clk.Advance(250 * time.Millisecond)
		signal()
		signal() // while one is pending: coalesced
		if testkit.Moved(clk) == 250*time.Millisecond {
			testkit.WaitWaiters(t, clk, 1) // the wait for the gap
		}
	}
	clk.Advance(250 * time.Millisecond) // t = 1s
	at(time.Second)
	testkit.WaitWaiters(t, clk, 1) // the pending signal's wait
	select {
	case got := <-sent:
		t.Fatalf("a send at %v before the gap", got)
	default:
	}
	clk.Advance(time.Second)
	at(2 * time.Second)
	close(stop)
	<-done

	// gap 0: each signal is sent as it comes, no wait.
	stop0 := make(chan struct{})
	done0 := make(chan struct{})
	go func() {
		defer close(done0)
		ForwardSamples(sampled, stop0, 0, clk, func() { sent <- clk.Now() })
	}()
	for i := range 3 {
		clk.Advance(10 * time.Millisecond)
		signal()
		at(2*time.Second + time.Duration(i+1)*10*time.Millisecond)
	}
	close(stop0)
	<-done0
}
