package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/offtop/offtop/internal/load"
	"github.com/offtop/offtop/internal/remote"
	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/sweep"
)

// loadUsage is --load's usage text (cliflag: `SPEC` names its value).
const loadUsage = "`SPEC` drive an open-loop HTTP load at the program's address while attached: " +
	"PATH=RATE/s[,PATH=RATE/s...], e.g. /ping=20/s,/fib?n=30=40/s (GETs, at most 1000/s in all); " +
	"the client's p99 sits beside the middleware's"

// parseLoad reads --load's SPEC; nil, nil when s is "" and the flag was
// not given.
func parseLoad(cmd, s string, given bool) (load.Spec, error) {
	if !given {
		return nil, nil
	}
	spec, err := load.Parse(s)
	if err != nil {
		return nil, usagef("%s: --load: %v", cmd, err)
	}
	return spec, nil
}

// startLoad checks spec's targets at addr (the agent's address: the
// service is the same host and port) and starts the load; with no spec,
// no load. The Source it returns is c with the load's figures in every
// Snapshot (LoadClient) and route as the featured one (Link.Route); its
// Close stops the load, then c.
func startLoad(cmd, addr string, spec load.Spec, route string, c session.Source) (session.Source, error) {
	var l *load.Load
	if spec != nil {
		u, err := remote.BaseURL(addr)
		if err != nil {
			return nil, usagef("%s: %v", cmd, err)
		}
		base := u.Scheme + "://" + u.Host
		if err := load.Check(base, spec); err != nil {
			return nil, usagef("%s: --load: %v", cmd, err)
		}
		window := time.Duration(c.Snapshot().Window)
		if window <= 0 {
			window = session.DefaultWindow
		}
		if err := checkRoute(route, spec, c); err != nil {
			return nil, usagef("%s: --route: %v", cmd, err)
		}
		if l, err = load.Start(load.Options{Base: base, Spec: spec, Window: window}); err != nil {
			return nil, usagef("%s: --load: %v", cmd, err)
		}
	}
	return sweep.NewLoadSource(c, l, route), nil
}

// routeWait bounds how long checkRoute waits for the program's routes to
// show the requests load.Check sent (the agent samples every 250 ms).
const routeWait = time.Second

// checkRoute says whether route ("" passes) names something: a target
// of spec by its path, or a route the program has served (c's endpoints,
// read until routeWait, so load.Check's requests have shown there).
func checkRoute(route string, spec load.Spec, c session.Source) error {
	if route == "" || slices.ContainsFunc(spec, func(t load.Target) bool { return t.Path == route }) {
		return nil
	}
	var routes []string
	for end := time.Now().Add(routeWait); ; time.Sleep(50 * time.Millisecond) {
		routes = routes[:0]
		for _, e := range c.Snapshot().Endpoints {
			if e.Route == route {
				return nil
			}
			routes = append(routes, e.Route)
		}
		if time.Now().After(end) {
			break
		}
	}
	return fmt.Errorf("%s is neither a target of --load (%s) nor a route the program has served (%s)",
		quote(route), spec, strings.Join(routes, ", "))
}
