package decimal

import (
	"errors"
	"flag"
	"testing"
)

// TestIntReadsDecimalOnly: digits are decimal (010 is 10), spaces around
// trimmed; Go's base prefixes and digit separators are refused.
func TestIntReadsDecimalOnly(t *testing.T) {
	for s, want := range map[string]int{"0": 0, "10": 10, "010": 10, "-1": -1, "256": 256, " 3": 3, "4 ": 4} {
		if n, err := Int(s); err != nil || n != want {
			t.Errorf("Int(%q) = %d, %v; want %d", s, n, err, want)
		}
	}
	for _, s := range []string{"0x10", "0b11", "0o7", "1_0", "1 0", "", " ", "1.0", "x", "+0x1"} {
		if _, err := Int(s); !errors.Is(err, ErrSyntax) {
			t.Errorf("Int(%q): %v, want ErrSyntax", s, err)
		}
	}
	if _, err := Int("99999999999999999999999"); !errors.Is(err, ErrRange) {
		t.Errorf("a 23-digit number: %v, want ErrRange", err)
	}
}

// TestValueIsAnIntFlag: a flag defined with Var reads decimal and gets an
// int, as flag.IntVar's would.
func TestValueIsAnIntFlag(t *testing.T) {
	var n int
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Var(Var(&n, -1), "workers", "")
	if n != -1 {
		t.Fatalf("default %d", n)
	}
	if err := fs.Parse([]string{"--workers", "010"}); err != nil || n != 10 {
		t.Fatalf("--workers 010: %d, %v", n, err)
	}
	if g, ok := fs.Lookup("workers").Value.(flag.Getter); !ok || g.Get() != 10 {
		t.Errorf("Get %v", g.Get())
	}
	if err := fs.Parse([]string{"--workers", "0x10"}); err == nil {
		t.Error("--workers 0x10 accepted")
	}
}
