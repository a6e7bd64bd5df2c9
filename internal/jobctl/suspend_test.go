package jobctl

import "testing"

// TestTermGate walks the orderings a suspension and a quit can come in:
// a quit while the dashboard holds the terminal goes through and no
// suspension starts after it; a quit while a suspension has the terminal
// is held, and the suspension then ends the program instead of handing the
// terminal back; a stop the Suspender saw does the same; a suspension
// without a stop hands the terminal back, and quits go through again.
func TestTermGate(t *testing.T) {
	t.Run("quit, then ctrl+z", func(t *testing.T) {
		var g termGate
		if !g.quit() {
			t.Fatal("a quit with the dashboard holding the terminal was held")
		}
		if g.release() {
			t.Error("a suspension started after a quit went through")
		}
		if g.held() {
			t.Error("a quit that went through is held")
		}
	})
	t.Run("ctrl+z, quit, resume", func(t *testing.T) {
		var g termGate
		if !g.release() {
			t.Fatal("no suspension")
		}
		if g.quit() {
			t.Fatal("a quit went through while the terminal was released")
		}
		if !g.held() {
			t.Error("the quit is not held")
		}
		if g.quit() {
			t.Error("a second quit went through while released")
		}
		if !g.reclaim(false) {
			t.Error("the resume handed the terminal back with a quit held")
		}
		if g.quit() {
			t.Error("a quit went through after the resume chose to end the program")
		}
		if g.release() {
			t.Error("a suspension started with a quit held")
		}
	})
	t.Run("ctrl+z, stop signal, resume", func(t *testing.T) {
		var g termGate
		g.release()
		if !g.reclaim(true) {
			t.Error("the resume handed the terminal back with a stop pending")
		}
		if g.quit() {
			t.Error("a quit went through after the resume chose to end the program")
		}
	})
	t.Run("ctrl+z, resume, quit", func(t *testing.T) {
		var g termGate
		for range 3 {
			if !g.release() {
				t.Fatal("no suspension")
			}
			if g.reclaim(false) {
				t.Fatal("a resume with no stop ended the program")
			}
		}
		if g.held() {
			t.Error("a quit held with none asked")
		}
		if !g.quit() {
			t.Error("a quit after the resumes was held")
		}
	})
}
