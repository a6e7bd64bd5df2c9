package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/offtop/offtop/internal/ui"
)

// step is one timed key of a --keys script: press Key at Offset from start.
type step struct {
	Offset time.Duration
	Key    string
}

// parseKeys reads a --keys script, the mini-language of scripted sessions:
//
//	script = step { sep step }
//	sep    = one or more of: space, comma, tab, newline, carriage return
//	step   = OFFSET ":" KEY
//
// OFFSET is a Go duration (time.ParseDuration: "0s", "1.5s", "1500ms",
// "2m") from the start of the run, 0..8760h (runRange). KEY is one of
// ui.Keys, spelt as it spells them (offtop --help lists them: keysUsage).
// E.g. "2s:4 4s:+ 6s:0 8s:q". Steps run in offset order; equal offsets
// keep their written order. An empty script has no steps.
//
// A bad step is an error on one line that names the step, says why, then
// quotes the step (cut when long: quote).
// formatKeys(steps) parses back to steps (the fuzz test pins it).
func parseKeys(script string) ([]step, error) {
	fields := strings.FieldsFunc(script, isKeySep)
	steps := make([]step, 0, len(fields))
	for i, f := range fields {
		off, key, ok := strings.Cut(f, ":")
		if !ok || key == "" {
			return nil, fmt.Errorf("step %d: want OFFSET:KEY, e.g. 2s:4: %s", i+1, quote(f))
		}
		d, err := time.ParseDuration(off)
		if err != nil {
			why := durationReason(off)
			if durationShape.MatchString(off) {
				why = "out of range " + runRange.text // too long for a time.Duration
			}
			return nil, fmt.Errorf("step %d: offset %s: %s", i+1, why, quote(f))
		}
		if d < 0 {
			return nil, fmt.Errorf("step %d: offset negative: %s", i+1, quote(f))
		}
		if d > runRange.hi {
			return nil, fmt.Errorf("step %d: offset out of range %s: %s", i+1, runRange.text, quote(f))
		}
		if !slices.Contains(ui.Keys(), key) {
			return nil, fmt.Errorf("step %d: unknown key (keys: %s): %s", i+1, strings.Join(ui.Keys(), " "), quote(f))
		}
		steps = append(steps, step{d, key})
	}
	slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(a.Offset, b.Offset) })
	return steps, nil
}

// keysUsage is offtop --help's line of the keys a --keys step may send,
// from ui's key table: "keys: + up - down 0-9 a ...".
func keysUsage() string {
	return "keys: " + strings.Join(ui.KeyNames(), " ")
}

// isKeySep reports whether r separates the steps of a --keys script.
func isKeySep(r rune) bool {
	return r == ' ' || r == ',' || r == '\t' || r == '\n' || r == '\r'
}

// formatKeys writes steps back as a script parseKeys accepts.
func formatKeys(steps []step) string {
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = s.Offset.String() + ":" + s.Key
	}
	return strings.Join(parts, " ")
}

// playKeys calls press for each step at its offset from start, until stop
// is closed. It returns when the script ends or stop closes.
func playKeys(steps []step, start time.Time, stop <-chan struct{}, press func(key string)) {
	for _, s := range steps {
		t := time.NewTimer(time.Until(start.Add(s.Offset)))
		select {
		case <-stop:
			t.Stop()
			return
		case <-t.C:
		}
		press(s.Key)
	}
}
