package ui

import (
	"fmt"
	"math/rand/v2"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/offtop/offtop/internal/scenarios"
)

// draw is what Bubble Tea's renderer does with a frame: clear its screen
// buffer and draw the frame's styled text into it.
func draw(frame string, w, h int) uv.ScreenBuffer {
	buf := uv.NewScreenBuffer(w, h)
	buf.Clear()
	uv.NewStyledString(frame).Draw(buf, buf.Bounds())
	return buf
}

// TestTrimmedFrameDrawsTheSame: on every scenario, at three sizes, in the
// dashboard, detail and help views, over frames whose figures change, the
// frame without its trailing blanks draws exactly the cells (content,
// style, link) of the frame Render gives.
func TestTrimmedFrameDrawsTheSame(t *testing.T) {
	views := []viewState{{}, {detail: true}, {help: true}, {errLine: "workers: want 0..256"}}
	for _, name := range scenarios.Names() {
		snap := realSnapshot(t, name)
		for _, sz := range [][2]int{{80, 24}, {100, 30}, {160, 48}} {
			w, h := sz[0], sz[1]
			r := rand.New(rand.NewPCG(uint64(w), 11))
			for k := range 8 {
				snap = vary(snap, k, r)
				for _, v := range views {
					full := render(snap, w, h, v)
					trimmed := trimBlanks(full)
					if len(trimmed) >= len(full) && k == 0 && v == (viewState{}) {
						t.Errorf("%s %dx%d: nothing trimmed (%d bytes)", name, w, h, len(full))
					}
					a, b := draw(full, w, h), draw(trimmed, w, h)
					for y := 0; y < h; y++ {
						for x := 0; x < w; x++ {
							ca, cb := a.CellAt(x, y), b.CellAt(x, y)
							if !ca.Equal(cb) {
								t.Fatalf("%s %dx%d %+v frame %d: cell (%d,%d) is %s, untrimmed %s", name, w, h, v, k, x, y, show(cb), show(ca))
							}
						}
					}
				}
			}
		}
	}
}

func show(c *uv.Cell) string {
	if c == nil {
		return "nil"
	}
	return fmt.Sprintf("%q %+v", c.Content, c.Style)
}
