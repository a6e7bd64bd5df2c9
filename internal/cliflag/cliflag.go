// Package cliflag is a command's flags: each registered with its usage,
// the usage text generated from those registrations, and every bad value
// said on one line that names the flag as the help does (--workers), says
// what is wrong, then quotes the value: `--workers: not a whole number:
// "abc"`.
package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Set is a flag.FlagSet that prints nothing and knows its flags' ranges.
type Set struct {
	*flag.FlagSet
	ranges map[string]string
	bounds []bound // in registration order
}

// bound is the range lo..hi of a duration flag.
type bound struct {
	name   string
	p      *time.Duration
	lo, hi time.Duration
}

// New is an empty Set named name ("offtop sweep").
func New(name string) *Set {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &Set{FlagSet: fs, ranges: map[string]string{}}
}

// Range records the range of flag name as the usage says it ("0..256"),
// for the message of a value too large to parse.
func (s *Set) Range(name, text string) { s.ranges[name] = text }

// DurationVar defines a duration flag whose value must lie in lo..hi,
// said as text ("1ms..1m") in messages; Check checks it.
func (s *Set) DurationVar(p *time.Duration, name string, def, lo, hi time.Duration, text, usage string) {
	s.FlagSet.DurationVar(p, name, def, usage)
	s.Range(name, text)
	s.bounds = append(s.bounds, bound{name, p, lo, hi})
}

// Check is the first duration flag, in the order defined, outside its
// range: "--interval: out of range 1ms..1m: 2m0s"; nil when none.
func (s *Set) Check() error {
	for _, b := range s.bounds {
		if v := *b.p; v < b.lo || v > b.hi {
			return fmt.Errorf("--%s: out of range %s: %v", b.name, s.ranges[b.name], v)
		}
	}
	return nil
}

// Seen is the set of flags the command line gave.
func (s *Set) Seen() map[string]bool {
	seen := map[string]bool{}
	s.Visit(func(f *flag.Flag) { seen[f.Name] = true })
	return seen
}

// Usage column widths: "  --name ARG" is padded to usageCol, the text
// wrapped at usageWidth.
const (
	usageCol   = 22
	usageWidth = 86
)

// Usage is the usage lines of the flags names, in that order: "--name
// ARG", ARG the back-quoted word of the flag's usage (none without one),
// then the usage and, unless the usage says its default itself
// ("default:") or the default is empty or false, "(default V)" from the
// flag's DefValue. A name of "" is a line of its own, text as given: the
// next argument.
func (s *Set) Usage(names ...string) string {
	var b strings.Builder
	for i := 0; i < len(names); i++ {
		if names[i] == "" && i+1 < len(names) {
			i++
			b.WriteString(names[i] + "\n")
			continue
		}
		f := s.Lookup(names[i])
		if f == nil {
			panic("cliflag: no flag " + names[i])
		}
		arg, text := argWord(f.Usage)
		if def := f.DefValue; !strings.Contains(text, "default:") && def != "" && def != "false" {
			text += " (default " + def + ")"
		}
		head := "  --" + f.Name
		if arg != "" {
			head += " " + arg
		}
		b.WriteString(Line(head, text, usageCol))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// argWord is the back-quoted word of usage and usage without the quotes,
// or without the word when usage begins with it: "`D` stop after D".
func argWord(usage string) (arg, text string) {
	if rest, ok := strings.CutPrefix(usage, "`"); ok {
		if w, text, ok := strings.Cut(rest, "` "); ok {
			return w, text
		}
	}
	i := strings.IndexByte(usage, '`')
	j := strings.IndexByte(usage[i+1:], '`')
	if i < 0 || j < 0 {
		return "", usage
	}
	arg = usage[i+1 : i+1+j]
	return arg, usage[:i] + arg + usage[i+2+j:]
}

// Line is head padded to col, then text wrapped at the usage's width, its
// further lines indented to col; it ends with a newline.
func Line(head, text string, col int) string {
	var b strings.Builder
	line := head
	if utf8.RuneCountInString(line) >= col-1 {
		b.WriteString(line + "\n")
		line = ""
	}
	line += strings.Repeat(" ", col-utf8.RuneCountInString(line))
	n := 0
	for _, w := range strings.Fields(text) {
		if n > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > usageWidth {
			b.WriteString(line + "\n")
			line, n = strings.Repeat(" ", col), 0
		}
		if n > 0 {
			line += " "
		}
		line += w
		n++
	}
	b.WriteString(line + "\n")
	return b.String()
}

// Error is err, an error of s.Parse, as one line (flag.ErrHelp is
// returned as it is).
func (s *Set) Error(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return errors.New(s.message(err))
}

func (s *Set) message(err error) string {
	msg := err.Error()
	// invalid value "abc" for flag -workers: parse error
	// invalid boolean value "maybe" for -headless: parse error
	for _, pre := range []string{"invalid value ", "invalid boolean value "} {
		rest, ok := strings.CutPrefix(msg, pre)
		if !ok {
			continue
		}
		val, err := strconv.QuotedPrefix(rest)
		if err != nil {
			break
		}
		v, _ := strconv.Unquote(val)
		rest = strings.TrimPrefix(strings.TrimPrefix(rest[len(val):], " for flag -"), " for -")
		name, why, _ := strings.Cut(rest, ":")
		return fmt.Sprintf("--%s: %s: %s", name, s.reason(s.Lookup(name), strings.TrimSpace(why), v), Quote(v))
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag: " + Quote("--"+name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Sprintf("--%s: needs a value", name)
	}
	if arg, ok := strings.CutPrefix(msg, "bad flag syntax: "); ok {
		return "bad flag syntax: " + Quote(arg)
	}
	return msg
}

// outOfRange is "out of range" and the flag's range where it has one.
func (s *Set) outOfRange(name string) string {
	if r, ok := s.ranges[name]; ok {
		return "out of range " + r
	}
	return "out of range"
}

// reason says what is wrong with the value v that f's parser refused;
// why is the parser's word for it ("parse error", "value out of range").
func (s *Set) reason(f *flag.Flag, why, v string) string {
	var cur any
	if f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			cur = g.Get()
		}
	}
	switch cur.(type) {
	case bool:
		return "not true or false"
	case time.Duration:
		if _, ok := s.ranges[f.Name]; ok && DurationShape.MatchString(v) {
			return s.outOfRange(f.Name) // too long for a time.Duration
		}
		return DurationReason(v)
	case int:
		if why == "value out of range" {
			return s.outOfRange(f.Name)
		}
		return "not a whole number"
	case float64:
		if why == "value out of range" {
			return s.outOfRange(f.Name)
		}
		return "not a number"
	}
	return why
}

// DurationShape is the syntax time.ParseDuration reads: a sign, then one
// or more decimal numbers, each with its unit.
var DurationShape = regexp.MustCompile(`^[-+]?((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$`)

// DurationReason says why v, which time.ParseDuration refused, is not a
// duration: written as one but too long for a time.Duration (whose
// error says "invalid duration" for that too), or not written as one.
func DurationReason(v string) string {
	if DurationShape.MatchString(v) {
		return fmt.Sprintf("out of range (at most %dh)", int64(math.MaxInt64/time.Hour))
	}
	return "not a duration like 2s or 1500ms"
}

// maxQuoted is how many runes of a typed value a message quotes.
const maxQuoted = 40

// Quote is a value the user typed as a message shows it: Go-quoted, so
// control characters (a flag named "-\r"), invisible formatting ones
// (U+202E turns text around) and bytes that are not UTF-8 (0x9b starts a
// terminal escape) are escaped, and cut past maxQuoted runes with its
// length: "99999999...(400 chars)". The value is cut, never the reason
// before it.
func Quote(v string) string {
	n := utf8.RuneCountInString(v)
	if n <= maxQuoted {
		return strconv.Quote(v)
	}
	i, k := 0, 0
	for k < maxQuoted {
		_, size := utf8.DecodeRuneInString(v[i:])
		i += size
		k++
	}
	q := strconv.Quote(v[:i])
	return fmt.Sprintf("%s...(%d chars)\"", q[:len(q)-1], n)
}

// OneLine makes a message safe to print on one line: control characters,
// invisible formatting ones and bytes that are not UTF-8 are escaped as Go
// escapes them. Typed values are already quoted and cut (Quote), so the
// message itself is never cut.
func OneLine(msg string) string {
	var b strings.Builder
	for i, r := range msg {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(msg[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, msg[i])
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || !unicode.IsPrint(r) && r != ' ':
			q := strconv.QuoteRune(r) // '\r', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
