package ui

import (
	"io"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/offtop/offtop/internal/session"
)

// BenchmarkFrameParts: what one changed frame costs by part at 100x30,
// over two frames of a paused run one sample apart: formatting the Snapshot (render, its
// plots kept from the frame before or drawn again; trim), then what
// Bubble Tea's renderer does with a frame whose content changed (parse it
// into its cleared cell buffer; diff the buffer against the screen and
// write the changes).
func BenchmarkFrameParts(b *testing.B) {
	const w, h = 100, 30
	// Two samples of a paused run 100ms apart: the clock, the CPU and the
	// RSS moved; the histories did not.
	s0 := richSnapshot()
	s1 := s0
	s1.Elapsed += session.Seconds(100 * time.Millisecond)
	s1.CPUPercent, s1.RSSBytes = s0.CPUPercent/2, s0.RSSBytes+4096
	snaps := [2]session.Snapshot{s0, s1}
	var frames [2]string
	for i, s := range snaps {
		frames[i] = trimBlanks(render(s, w, h, viewState{}))
	}
	b.Run("render", func(b *testing.B) {
		i := 0
		for b.Loop() {
			_ = render(snaps[i&1], w, h, viewState{})
			i++
		}
	})
	b.Run("render-plots-drawn", func(b *testing.B) {
		i := 0
		for b.Loop() {
			plots.mu.Lock()
			plots.e = [len(plots.e)]plotEntry{}
			plots.mu.Unlock()
			_ = render(snaps[i&1], w, h, viewState{})
			i++
		}
	})
	b.Run("trim", func(b *testing.B) {
		full := render(s0, w, h, viewState{})
		for b.Loop() {
			_ = trimBlanks(full)
		}
	})
	b.Run("parse", func(b *testing.B) {
		buf := uv.NewScreenBuffer(w, h)
		i := 0
		for b.Loop() {
			buf.Clear()
			uv.NewStyledString(frames[i&1]).Draw(buf, buf.Bounds())
			i++
		}
	})
	b.Run("parse+diff+write", func(b *testing.B) {
		buf := uv.NewScreenBuffer(w, h)
		tr := uv.NewTerminalRenderer(io.Discard, []string{"TERM=tmux-256color"})
		tr.Resize(w, h)
		i := 0
		for b.Loop() {
			buf.Clear()
			uv.NewStyledString(frames[i&1]).Draw(buf, buf.Bounds())
			tr.Render(buf.RenderBuffer)
			_ = tr.Flush()
			i++
		}
	})
	b.Logf("frame: %d bytes", len(frames[0]))
}
