// Package crash routes a panic in any goroutine offtop starts to one
// handler, so the program can restore the terminal, say what happened on
// one line and exit, instead of dying with the terminal in raw mode and the
// alternate screen on.
//
// A goroutine that may panic is started with Go, or begins with
//
//	defer crash.Recover()
//
// Recover must be deferred directly (recover only works in the deferred
// function itself). A recovered panic becomes a Report passed to the handler
// set with SetHandler; the goroutine then ends as if its function had
// returned, its own defers run. With no handler set, Recover panics again
// with the same value, so a program (or test) that never sets one behaves as
// without this package.
//
// The handler is called on the panicking goroutine and must not block for
// long: it should ask the program to stop and return.
package crash

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Report is a recovered panic.
type Report struct {
	// Value is what was passed to panic.
	Value any
	// Func and Where name the function that panicked and its file:line
	// (the innermost frame outside the runtime); empty when unknown.
	Func, Where string
	// Stack is the panicking goroutine's stack, as debug.Stack prints it.
	Stack []byte
}

// Error is the panic on one line: "panic in ui.render (render.go:123):
// runtime error: index out of range [3] with length 3".
func (r Report) Error() string {
	v := oneLine(fmt.Sprint(r.Value))
	if r.Func == "" {
		return "panic: " + v
	}
	return fmt.Sprintf("panic in %s (%s): %s", r.Func, r.Where, v)
}

// oneLine collapses runs of whitespace, newlines included, to one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var (
	mu      sync.Mutex
	handler func(Report)
)

// SetHandler sets the function recovered panics go to (nil: none, Recover
// panics again) and returns a function that puts back the previous one.
func SetHandler(h func(Report)) (restore func()) {
	mu.Lock()
	prev := handler
	handler = h
	mu.Unlock()
	return func() {
		mu.Lock()
		handler = prev
		mu.Unlock()
	}
}

func current() func(Report) {
	mu.Lock()
	defer mu.Unlock()
	return handler
}

// Recover, deferred, recovers a panic of the goroutine and hands it to the
// handler. Without a panic it does nothing.
func Recover() {
	if v := recover(); v != nil {
		handle(v)
	}
}

// Handle hands v, a value the caller's deferred function has just
// recovered, to the handler as Recover would: for code that recovers
// itself and takes its panic handler as an option (pool.Options.PanicHandler).
// With no handler set it panics again with v.
func Handle(v any) { handle(v) }

// Go runs fn on a new goroutine that recovers its panics into the handler.
func Go(fn func()) {
	go func() {
		defer Recover()
		fn()
	}()
}

// Wrap returns fn with its panics recovered into the handler: for
// callbacks run on goroutines this program does not start.
func Wrap(fn func()) func() {
	return func() {
		defer Recover()
		fn()
	}
}

// handle builds a Report for v, recovered by the caller's deferred
// function, and passes it on.
func handle(v any) {
	h := current()
	if h == nil {
		panic(v)
	}
	r := Report{Value: v, Stack: debug.Stack()}
	r.Func, r.Where = site()
	h(r)
}

// site finds the frame that panicked: the first frame below runtime.gopanic
// that is not in the runtime (an index error panics from runtime.goPanicIndex,
// a nil dereference from runtime.sigpanic).
func site() (fn, where string) {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(1, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && !strings.HasPrefix(f.Function, "runtime."):
			return shortFunc(f.Function), shortFile(f.File) + ":" + fmt.Sprint(f.Line)
		}
		if !more {
			return "", ""
		}
	}
}

// shortFunc drops the import path: "github.com/offtop/offtop/internal/ui.render"
// becomes "ui.render".
func shortFunc(f string) string {
	if i := strings.LastIndex(f, "/"); i >= 0 {
		f = f[i+1:]
	}
	return f
}

// shortFile keeps the file's name and its directory: "ui/render.go".
func shortFile(f string) string {
	parts := strings.Split(f, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/")
}
