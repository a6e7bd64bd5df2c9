package crash

import (
	"strings"
	"sync"
	"testing"
)

// capture sets a handler that keeps every report, for one test.
func capture(t *testing.T) (get func() []Report) {
	var (
		mu   sync.Mutex
		reps []Report
	)
	t.Cleanup(SetHandler(func(r Report) {
		mu.Lock()
		reps = append(reps, r)
		mu.Unlock()
	}))
	return func() []Report {
		mu.Lock()
		defer mu.Unlock()
		return append([]Report(nil), reps...)
	}
}

func indexPanic(s []int, i int) int { return s[i] }

func TestGoRoutesPanicToHandler(t *testing.T) {
	got := make(chan Report, 1)
	t.Cleanup(SetHandler(func(r Report) { got <- r }))
	deferRan := make(chan struct{})
	Go(func() {
		defer close(deferRan) // the goroutine's own defers still run
		indexPanic([]int{1, 2, 3}, 5)
	})
	r := <-got
	<-deferRan
	if r.Func != "crash.indexPanic" || !strings.HasPrefix(r.Where, "crash/crash_test.go:") {
		t.Errorf("site %q %q, want crash.indexPanic in crash/crash_test.go", r.Func, r.Where)
	}
	msg := r.Error()
	if !strings.Contains(msg, "index out of range [5] with length 3") || strings.Contains(msg, "\n") {
		t.Errorf("Error() = %q", msg)
	}
	if !strings.Contains(string(r.Stack), "indexPanic") {
		t.Errorf("stack lacks the panicking function:\n%s", r.Stack)
	}
}

func TestRecoverWithoutPanicIsQuiet(t *testing.T) {
	get := capture(t)
	func() {
		defer Recover()
	}()
	Wrap(func() {})()
	if n := len(get()); n != 0 {
		t.Errorf("%d reports without a panic", n)
	}
}

func TestWrapOneLineValue(t *testing.T) {
	get := capture(t)
	Wrap(func() { panic("two\nlines") })()
	reps := get()
	if len(reps) != 1 || reps[0].Error() != "panic in crash.TestWrapOneLineValue.func1 ("+reps[0].Where+"): two lines" {
		t.Fatalf("reports %v", reps)
	}
}

func TestNoHandlerPanicsAgain(t *testing.T) {
	defer SetHandler(nil)()
	defer func() {
		if v := recover(); v != "boom" {
			t.Errorf("recovered %v, want the original value boom", v)
		}
	}()
	Wrap(func() { panic("boom") })()
	t.Error("no panic")
}

func TestReportWithoutSite(t *testing.T) {
	if got := (Report{Value: 42}).Error(); got != "panic: 42" {
		t.Errorf("Error() = %q", got)
	}
}
