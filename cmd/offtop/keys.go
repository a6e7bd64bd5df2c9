package main

import (
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

// parseKeys reads a script of OFFSET:KEY steps separated by spaces or
// commas, e.g. "2s:4 4s:+ 6s:0 8s:q". OFFSET is a Go duration from the
// start (>= 0); KEY is any key the dashboard takes (ui.Keys). Steps run in
// offset order; equal offsets keep their written order.
func parseKeys(script string) ([]step, error) {
	fields := strings.FieldsFunc(script, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
	steps := make([]step, 0, len(fields))
	for _, f := range fields {
		off, key, ok := strings.Cut(f, ":")
		if !ok || key == "" {
			return nil, fmt.Errorf("step %q: want OFFSET:KEY, e.g. 2s:4", f)
		}
		d, err := time.ParseDuration(off)
		if err != nil {
			return nil, fmt.Errorf("step %q: offset %q is not a duration like 2s or 1500ms", f, off)
		}
		if d < 0 {
			return nil, fmt.Errorf("step %q: offset is negative", f)
		}
		if !slices.Contains(ui.Keys(), key) {
			return nil, fmt.Errorf("step %q: unknown key %q (keys: %s)", f, key, strings.Join(ui.Keys(), " "))
		}
		steps = append(steps, step{d, key})
	}
	slices.SortStableFunc(steps, func(a, b step) int { return int(a.Offset - b.Offset) })
	return steps, nil
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
