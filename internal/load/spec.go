// Package load drives an open-loop, constant-rate HTTP load against a
// service's endpoints and measures each request from the time it was due,
// so a service that stalls shows its stall in the figures instead of
// slowing the load down (coordinated omission).
//
// A SPEC names the endpoints and their rates:
//
//	SPEC   = TARGET { "," TARGET }
//	TARGET = PATH "=" RATE "/s"
//	PATH   = "/" then a path and an optional "?query": no space, control
//	         character, "," or "#"; "=" may occur (the last "=" ends PATH)
//	RATE   = a whole number of requests per second, 1..MaxRate
//
// for example `/ping=20/s,/fib?n=30=40/s`. A PATH appears once; the rates
// together are at most MaxRate. The requests are GETs, each due at a
// fixed time (the n-th of a target at n/RATE s after the load began),
// sent at that time whether or not the earlier ones were answered.
package load

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// MaxRate is the most requests per second a SPEC may ask for, its
// targets' rates together. The load runs on the machine it measures, and
// every request the service leaves unanswered holds a goroutine and a
// connection until Timeout: at MaxRate a stall of Timeout or longer
// holds MaxRate*Timeout/s (5000) of each, under the 10000 connections
// vegeta keeps per host and the ports loopback has free.
const MaxRate = 1000

// Target is one endpoint of a Spec: its path (with any query) and its
// rate in requests per second.
type Target struct {
	Path string
	Rate int
}

// Spec is a parsed SPEC, targets in the order given.
type Spec []Target

// ErrSpec wraps every error of Parse.
var ErrSpec = errors.New("load spec")

// Parse reads a SPEC (the package's grammar). Its errors wrap ErrSpec and
// name the target at fault.
func Parse(s string) (Spec, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty (want PATH=RATE/s[,PATH=RATE/s...], e.g. /ping=20/s)", ErrSpec)
	}
	var spec Spec
	seen := map[string]bool{}
	total := 0
	for i, part := range strings.Split(s, ",") {
		t, err := parseTarget(part)
		if err != nil {
			return nil, fmt.Errorf("%w: target %d %q: %v", ErrSpec, i+1, part, err)
		}
		if seen[t.Path] {
			return nil, fmt.Errorf("%w: target %d %q: %s given twice", ErrSpec, i+1, part, t.Path)
		}
		seen[t.Path] = true
		total += t.Rate
		if total > MaxRate {
			return nil, fmt.Errorf("%w: the rates add up to more than %d/s (the most one load sends)", ErrSpec, MaxRate)
		}
		spec = append(spec, t)
	}
	return spec, nil
}

// parseTarget reads PATH=RATE/s.
func parseTarget(s string) (Target, error) {
	eq := strings.LastIndexByte(s, '=')
	if eq < 0 {
		return Target{}, errors.New("no \"=RATE/s\"")
	}
	path, rate := s[:eq], s[eq+1:]
	if !strings.HasPrefix(path, "/") {
		return Target{}, errors.New("the path must start with \"/\"")
	}
	for _, r := range path {
		if r <= ' ' || r == 0x7f || r == '#' || (r >= 0x80 && r < 0xa0) || r == '\uFFFD' {
			return Target{}, fmt.Errorf("the path holds %q (no space, control character or \"#\")", r)
		}
	}
	if _, err := url.ParseRequestURI(path); err != nil {
		return Target{}, fmt.Errorf("the path is not a URL path: %v", errors.Unwrap(err))
	}
	num, ok := strings.CutSuffix(rate, "/s")
	if !ok {
		return Target{}, fmt.Errorf("rate %q: want a whole number per second, e.g. 20/s", rate)
	}
	n, err := strconv.Atoi(num)
	if err != nil || num != strconv.Itoa(n) {
		return Target{}, fmt.Errorf("rate %q: want a whole number per second, e.g. 20/s", rate)
	}
	switch {
	case n <= 0:
		return Target{}, fmt.Errorf("rate %d/s: want 1..%d", n, MaxRate)
	case n > MaxRate:
		return Target{}, fmt.Errorf("rate %d/s: over the maximum %d/s", n, MaxRate)
	}
	return Target{Path: path, Rate: n}, nil
}

// String is the SPEC that Parse reads back as s.
func (s Spec) String() string {
	parts := make([]string, len(s))
	for i, t := range s {
		parts[i] = t.Path + "=" + strconv.Itoa(t.Rate) + "/s"
	}
	return strings.Join(parts, ",")
}

// Rate is the requests per second of all targets.
func (s Spec) Rate() int {
	n := 0
	for _, t := range s {
		n += t.Rate
	}
	return n
}
