// Package jsonenc appends JSON values to a byte slice exactly as
// encoding/json's Marshal writes them (HTML-safe strings, its float64
// form), without reflection and without allocating beyond the slice's
// growth. offtop's JSON lines are written with it, once a sample, in the
// process it watches; its tests hold it byte for byte to encoding/json.
package jsonenc

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Null is the JSON null.
const Null = "null"

// Float appends v as encoding/json writes a float64: the shortest decimal
// that reads back as v, in exponent form below 1e-6 and from 1e21 in
// magnitude; null for NaN and Inf, which JSON cannot carry.
func Float(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, Null...)
	}
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// Int appends v.
func Int(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// Bool appends true or false.
func Bool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

const hex = "0123456789abcdef"

// String appends s quoted as encoding/json quotes it: ", \ and the
// control characters escaped (\b \f \n \r \t by name), <, > and & as
// \u003c, \u003e and \u0026, U+2028 and U+2029 as \u2028 and \u2029,
// and each byte of invalid UTF-8 as \ufffd.
func String(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Key appends the object key k and its colon, after a comma unless b
// ends an opening brace: Key(Key(append(b, '{'), "a")..., "b") writes
// {"a":...,"b":.
func Key(b []byte, k string) []byte {
	if n := len(b); n > 0 && b[n-1] != '{' {
		b = append(b, ',')
	}
	return append(String(b, k), ':')
}

// List appends v as an array, each element by each; a nil v is null, as
// encoding/json writes a nil slice.
func List[T any](b []byte, v []T, each func([]byte, T) []byte) []byte {
	if v == nil {
		return append(b, Null...)
	}
	return Array(b, v, each)
}

// Array appends v as an array, each element by each; a nil v is [].
func Array[T any](b []byte, v []T, each func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, x)
	}
	return append(b, ']')
}
