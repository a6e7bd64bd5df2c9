package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/ui"
)

func TestParseKeys(t *testing.T) {
	for _, c := range []struct {
		script string
		want   []step
	}{
		{"", []step{}},
		{" , ", []step{}},
		{"2s:1 4s:4 6s:0 8s:q", []step{{2 * time.Second, "1"}, {4 * time.Second, "4"}, {6 * time.Second, "0"}, {8 * time.Second, "q"}}},
		{"1.5s:+,1500ms:-\t0s:space\n3m:ctrl+c\r\n", []step{{0, "space"}, {1500 * time.Millisecond, "+"}, {1500 * time.Millisecond, "-"}, {3 * time.Minute, "ctrl+c"}}},
		{"5s:tab 1s:? 1s:[ 1s:]", []step{{time.Second, "?"}, {time.Second, "["}, {time.Second, "]"}, {5 * time.Second, "tab"}}},
		{"0s:up 0s:down 0s:r 0s:s 0s:S 0s:c", []step{{0, "up"}, {0, "down"}, {0, "r"}, {0, "s"}, {0, "S"}, {0, "c"}}},
	} {
		got, err := parseKeys(c.script)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parseKeys(%q) = %v, %v; want %v", c.script, got, err, c.want)
		}
	}
}

// TestParseKeysErrorsNameTheStep: each bad step is one line naming the
// step (its number and text) and why.
func TestParseKeysErrorsNameTheStep(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{"2s", `step 1: want OFFSET:KEY, e.g. 2s:4: "2s"`},
		{"1s:4 2s:", `step 2: want OFFSET:KEY, e.g. 2s:4: "2s:"`},
		{"xs:4", `step 1: offset not a duration like 2s or 1500ms: "xs:4"`},
		{":4", `step 1: offset not a duration like 2s or 1500ms: ":4"`},
		{"4:4", `step 1: offset not a duration like 2s or 1500ms: "4:4"`},
		{"-1s:4", `step 1: offset negative: "-1s:4"`},
		{"1s:1 2s:z", `step 2: unknown key (keys: +`},
		{"1s:1 2s:z", `): "2s:z"`},
		{"2s:k", `unknown key (keys: `},
		{"2s:Q", `: "2s:Q"`},
		{"2s:4:5", `: "2s:4:5"`},
		{"2s:\x1b", `: "2s:\x1b"`},
		{"99999999999h:q", `step 1: offset out of range 0..8760h: "99999999999h:q"`},
		{"2s:" + strings.Repeat("z", 100000), `unknown key (keys: `},
		{"2s:" + strings.Repeat("z", 100000), `zzz...(100003 chars)"`},
	} {
		_, err := parseKeys(c.script)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("parseKeys(%q) error %v, want one line with %q", c.script, err, c.want)
		}
	}
}

func TestFormatKeysEveryKey(t *testing.T) {
	var steps []step
	for i, k := range ui.Keys() {
		steps = append(steps, step{time.Duration(i) * 250 * time.Millisecond, k})
	}
	got, err := parseKeys(formatKeys(steps))
	if err != nil || !slices.Equal(got, steps) {
		t.Errorf("round trip of every key: %v, %v", got, err)
	}
}

// FuzzParseKeys: no script makes parseKeys panic, and every script it
// accepts round-trips through formatKeys. Its errors are one line.
// go test -fuzz FuzzParseKeys ./cmd/offtop
func FuzzParseKeys(f *testing.F) {
	for _, s := range []string{
		"", "2s:1 4s:4 6s:0 8s:q", "1.5s:+,1500ms:-", "0s:space\n3m:ctrl+c",
		"5s:tab 1s:? 1s:[", "2s", "xs:4", "-1s:4", "2s:z", "1h2m3.5s:up,,  0s:down",
		"9223372036854775807ns:q", "2s:4:5", ":", ",:,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		steps, err := parseKeys(script)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error on more than one line: %q", err)
			}
			return
		}
		again, err := parseKeys(formatKeys(steps))
		if err != nil {
			t.Fatalf("formatKeys(%v) = %q does not parse: %v", steps, formatKeys(steps), err)
		}
		if !slices.Equal(steps, again) {
			t.Fatalf("round trip: %v -> %q -> %v", steps, formatKeys(steps), again)
		}
		for i, s := range steps {
			if s.Offset < 0 || !slices.Contains(ui.Keys(), s.Key) || (i > 0 && steps[i-1].Offset > s.Offset) {
				t.Fatalf("accepted a bad step %v in %v", s, steps)
			}
		}
	})
}

// usageKeys are the keys a usage text's "keys: " line lists, its notes
// in parentheses aside and "0-9" as 0..9.
func usageKeys(t *testing.T, usage string) []string {
	t.Helper()
	var keys []string
	for _, l := range strings.Split(usage, "\n") {
		line, ok := strings.CutPrefix(l, "keys: ")
		if !ok {
			continue
		}
		for _, k := range strings.Fields(regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(line, "")) {
			if lo, hi, ok := strings.Cut(k, "-"); ok && len(lo) == 1 && len(hi) == 1 {
				for r := lo[0]; r <= hi[0]; r++ {
					keys = append(keys, string(r))
				}
				continue
			}
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		t.Fatalf("no keys: line in\n%s", usage)
	}
	return keys
}

// TestHelpKeysAreTheScriptKeys: every key offtop --help lists parses as
// a --keys step, and every key a step takes is listed.
func TestHelpKeysAreTheScriptKeys(t *testing.T) {
	listed := usageKeys(t, usageText)
	candidates := []string{"up", "down", "left", "right", "tab", "space", "enter", "esc", "pgup", "pgdown", "ctrl+c", "ctrl+z", "backspace"}
	for r := '!'; r <= '~'; r++ {
		candidates = append(candidates, string(r))
	}
	for _, k := range listed {
		if !slices.Contains(candidates, k) {
			candidates = append(candidates, k)
		}
	}
	for _, k := range candidates {
		_, err := parseKeys("1s:" + k)
		if (err == nil) != slices.Contains(listed, k) {
			t.Errorf("key %q: listed in --help %v, parseKeys error %v", k, slices.Contains(listed, k), err)
		}
	}
}

// TestAttachHelpKeysAreTheAttachedKeys: offtop attach --help lists
// exactly the keys an attached run takes.
func TestAttachHelpKeysAreTheAttachedKeys(t *testing.T) {
	listed, want := usageKeys(t, attachUsage), ui.AttachedKeys()
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("attach --help keys %q, attached keys %q", listed, want)
	}
}
