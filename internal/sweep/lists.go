package sweep

import (
	"errors"
	"fmt"
	"strings"

	"github.com/offtop/offtop/internal/decimal"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/session"
)

// SeedName is the name seed 001 gives a configuration: plain (1 Loop, no
// pool), cluster (Loops, no pool), worker_threads (1 Loop and a pool),
// both.
func SeedName(loops, workers int) string {
	switch {
	case loops <= 1 && workers == 0:
		return "plain"
	case workers == 0:
		return "cluster"
	case loops <= 1:
		return "worker_threads"
	default:
		return "both"
	}
}

// ParseLoops reads a comma-separated list of Loop counts, each
// 1..scenarios.MaxLoops, no duplicates.
func ParseLoops(s string) ([]int, error) {
	return parseList(s, 1, scenarios.MaxLoops, ErrLoops, "a count")
}

// ErrLoops is returned by ParseLoops for a malformed list.
var ErrLoops = errors.New("bad loops list")

// ErrWorkers is returned by ParseWorkers for a malformed list.
var ErrWorkers = errors.New("bad workers list")

// ParseWorkers reads a comma-separated list of pool sizes such as
// "0,1,2,4,8": each 0..session.MaxWorkers, at least one, no duplicates.
func ParseWorkers(s string) ([]int, error) {
	return parseList(s, 0, session.MaxWorkers, ErrWorkers, "a size")
}

// parseList reads a comma-separated list of distinct numbers lo..hi, each
// read by decimal.Int (spaces around trimmed, no base prefixes: as
// offtop's own int flags); errors wrap bad and call a number what ("a
// size twice"). The reason comes first; the item is named only when the
// list has several.
func parseList(s string, lo, hi int, bad error, what string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty", bad)
	}
	fields := strings.Split(s, ",")
	item := func(f string) string {
		if len(fields) == 1 {
			return ""
		}
		return fmt.Sprintf(" (item %.40q)", f)
	}
	var out []int
	seen := map[int]bool{}
	for _, f := range fields {
		n, err := decimal.Int(f)
		switch {
		case strings.TrimSpace(f) == "":
			return nil, fmt.Errorf("%w: an empty item", bad)
		case errors.Is(err, decimal.ErrRange) || (err == nil && (n < lo || n > hi)):
			return nil, fmt.Errorf("%w: out of range %d..%d%s", bad, lo, hi, item(f))
		case err != nil:
			return nil, fmt.Errorf("%w: not a whole number%s", bad, item(f))
		case seen[n]:
			return nil, fmt.Errorf("%w: %s twice: %d", bad, what, n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}
