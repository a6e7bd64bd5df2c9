// Package decimal reads the whole numbers of offtop's flags (offtop's
// --workers, --gomaxprocs, --loops, --jobs; sweep's --workers and --loops
// lists): decimal digits only, as a user writes them. Go's base prefixes
// (010 is 8 to flag.Int, 0x10 16, 0b11, 0o7) and digit separators (1_0)
// are not numbers here: every command refuses them alike. Spaces around
// a number are trimmed, in every command alike (a sweep list reads
// "0, 1, 2"; offtop --workers " 3" is 3, as sweep --workers " 3").
package decimal

import (
	"errors"
	"strconv"
	"strings"
)

// ErrSyntax and ErrRange are the reasons Int gives, the flag package's
// words for them, so flag messages read the same as for its own parsers.
var (
	ErrSyntax = errors.New("parse error")
	ErrRange  = errors.New("value out of range")
)

// Int parses s, spaces around it trimmed, as a decimal integer: an
// optional sign, then digits 0-9 only (leading zeros read as decimal:
// "010" is 10). A number past int's range is ErrRange; anything else not
// so is ErrSyntax.
func Int(s string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 0) // base 10: no prefixes, no underscores
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, ErrRange
		}
		return 0, ErrSyntax
	}
	return int(n), nil
}

// Value is a flag.Value (and flag.Getter) for an int read with Int.
type Value struct{ p *int }

// Var returns the flag.Value that sets *p, first to def.
func Var(p *int, def int) Value {
	*p = def
	return Value{p}
}

// Set reads s with Int.
func (v Value) Set(s string) error {
	n, err := Int(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

// String is the value in decimal ("0" for the zero Value).
func (v Value) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

// Get is the value, an int.
func (v Value) Get() any {
	if v.p == nil {
		return 0
	}
	return *v.p
}
