package load

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
		err  string // a part of the error; "" when it parses
	}{
		{in: "/ping=20/s", want: Spec{{"/ping", 20}}},
		{in: "/ping=20/s,/hash=40/s", want: Spec{{"/ping", 20}, {"/hash", 40}}},
		{in: "/fib?n=30=40/s", want: Spec{{"/fib?n=30", 40}}},
		{in: "/=1/s", want: Spec{{"/", 1}}},
		{in: "/a=1000/s", want: Spec{{"/a", 1000}}},
		{in: "/a%20b=5/s", want: Spec{{"/a%20b", 5}}},
		{in: "", err: "empty"},
		{in: "  ", err: "empty"},
		{in: "/ping", err: `no "=RATE/s"`},
		{in: "ping=20/s", err: `start with "/"`},
		{in: "/ping=0/s", err: "rate 0/s: want 1..1000"},
		{in: "/ping=-3/s", err: "rate -3/s"},
		{in: "/ping=1001/s", err: "over the maximum 1000/s"},
		{in: "/a=600/s,/b=401/s", err: "add up to more than 1000/s"},
		{in: "/ping=20", err: "whole number per second"},
		{in: "/ping=20/m", err: "whole number per second"},
		{in: "/ping=2.5/s", err: "whole number per second"},
		{in: "/ping=020/s", err: "whole number per second"},
		{in: "/ping=+20/s", err: "whole number per second"},
		{in: "/ping=20/s,", err: "target 2"},
		{in: "/ping=20/s,/ping=30/s", err: "/ping given twice"},
		{in: "/a b=1/s", err: "no space"},
		{in: "/a#b=1/s", err: `"#"`},
		{in: "/a\x1b=1/s", err: "control character"},
		{in: "/a\xff=1/s", err: "the path holds"},
		{in: "/a%zz=1/s", err: "not a URL path"},
	} {
		got, err := Parse(c.in)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("Parse(%q): %v", c.in, err)
		case c.err == "" && !slices.Equal(got, c.want):
			t.Errorf("Parse(%q) = %v, want %v", c.in, got, c.want)
		case c.err != "" && err == nil:
			t.Errorf("Parse(%q) = %v, want an error with %q", c.in, got, c.err)
		case c.err != "" && (!strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrSpec)):
			t.Errorf("Parse(%q): %v, want ErrSpec with %q", c.in, err, c.err)
		case c.err != "" && strings.Contains(err.Error(), "\n"):
			t.Errorf("Parse(%q): %q is more than one line", c.in, err)
		}
	}
}

// FuzzParse: Parse never panics, and what it reads prints back as a SPEC
// it reads the same, within the bounds.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"/ping=20/s", "/ping=20/s,/hash=40/s", "/fib?n=30=40/s", "/a=0/s", "", ",", "=", "/=/s", "/a=1000/s,/b=1/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := Parse(s)
		if err != nil {
			if spec != nil {
				t.Fatalf("Parse(%q) gave %v with its error %v", s, spec, err)
			}
			return
		}
		if spec.Rate() < 1 || spec.Rate() > MaxRate {
			t.Fatalf("Parse(%q): total rate %d outside 1..%d", s, spec.Rate(), MaxRate)
		}
		back, err := Parse(spec.String())
		if err != nil || !slices.Equal(back, spec) || back.String() != spec.String() {
			t.Fatalf("Parse(%q) = %v; its String %q reads back as %v, %v", s, spec, spec.String(), back, err)
		}
	})
}
