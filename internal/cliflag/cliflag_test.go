package cliflag

import (
	"strings"
	"testing"
	"time"
)

// TestUsageFromRegistrations: each line is the flag's name, its argument
// word, its usage and the default read from the flag; a usage that says
// its default keeps it; a long usage wraps under the text column.
func TestUsageFromRegistrations(t *testing.T) {
	s := New("t")
	s.Duration("interval", 250*time.Millisecond, "sample and redraw `D`, 1ms..1m")
	s.Int("workers", -1, "pool size `N` 0..256 (default: suggested)")
	s.Bool("headless", false, "no TUI")
	s.String("listen", "", "where to listen, a long text that goes on and on past the width of one line so that it wraps")
	got := s.Usage("interval", "workers", "", "section:", "headless", "listen")
	want := "  --interval D        sample and redraw D, 1ms..1m (default 250ms)\n" +
		"  --workers N         pool size N 0..256 (default: suggested)\n" +
		"section:\n" +
		"  --headless          no TUI\n" +
		"  --listen            where to listen, a long text that goes on and on past the width\n" +
		"                      of one line so that it wraps"
	if got != want {
		t.Errorf("usage:\n%s\nwant:\n%s", got, want)
	}
}

// TestErrorIsOneLine: a parse error names the flag, the reason and the
// quoted value; a number too large says the range recorded for it.
func TestErrorIsOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--n", "abc"}, `--n: not a whole number: "abc"`},
		{[]string{"--n", "99999999999999999999"}, `--n: out of range 0..9: "99999999999999999999"`},
		{[]string{"--d", "1x"}, `--d: not a duration like 2s or 1500ms: "1x"`},
		{[]string{"--d", "9999999999h"}, `--d: out of range 0..1h: "9999999999h"`},
		{[]string{"--b=maybe"}, `--b: not true or false: "maybe"`},
		{[]string{"--nope"}, `unknown flag: "--nope"`},
		{[]string{"--n"}, `--n: needs a value`},
		{[]string{"--\r"}, `unknown flag: "--\r"`},
	} {
		s := New("t")
		s.Int("n", 0, "")
		s.Range("n", "0..9")
		s.Duration("d", 0, "")
		s.Range("d", "0..1h")
		s.Bool("b", false, "")
		err := s.Parse(c.args)
		if err == nil {
			t.Fatalf("%q: accepted", c.args)
		}
		if got := OneLine(s.Error(err).Error()); got != c.want {
			t.Errorf("%q: %s, want %s", c.args, got, c.want)
		}
	}
	if q := Quote(strings.Repeat("9", 400)); q != `"`+strings.Repeat("9", 40)+`...(400 chars)"` {
		t.Errorf("a long value quoted as %s", q)
	}
}

// TestCheckSaysTheFirstOutOfRange: the first duration flag, in the order
// defined, outside its range is the error, with the range's text.
func TestCheckSaysTheFirstOutOfRange(t *testing.T) {
	s := New("t")
	var a, b time.Duration
	s.DurationVar(&a, "a", time.Second, time.Millisecond, time.Minute, "1ms..1m", "")
	s.DurationVar(&b, "b", 0, 0, time.Hour, "0..1h", "")
	if err := s.Parse(nil); err != nil || s.Check() != nil {
		t.Fatalf("defaults: %v, %v", err, s.Check())
	}
	if err := s.Parse([]string{"--b", "2h", "--a", "2m"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err == nil || err.Error() != "--a: out of range 1ms..1m: 2m0s" {
		t.Errorf("check: %v", err)
	}
}
