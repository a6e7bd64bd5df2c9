package load

import (
	"net/http"
	"strings"

	"github.com/offtop/offtop/internal/session"
)

// router matches a target's path to the route the program's mux serves
// it under, by an http.ServeMux holding the routes' patterns: the same
// matching the program's mux does when it is one. An Express route
// pattern (a Node program's: /users/:id, /files/*) is held as the
// ServeMux pattern that matches the same paths (/users/{id},
// /files/{rest...}) and matched back to its own name.
type router struct {
	key   string
	mux   *http.ServeMux
	names map[string]string // ServeMux pattern -> route, where they differ
}

// match is a function from a target's path to its route ("" when none
// of routes serves it); the mux is made again only when routes change.
func (r *router) match(routes []session.Endpoint) func(string) string {
	var b strings.Builder
	for _, e := range routes {
		b.WriteString(e.Route)
		b.WriteByte(0)
	}
	if r.mux == nil || r.key != b.String() {
		r.key, r.mux, r.names = b.String(), http.NewServeMux(), map[string]string{}
		for _, e := range routes {
			if !strings.Contains(e.Route, "/") {
				continue
			}
			pattern := expressPattern(e.Route)
			if handle(r.mux, pattern) && pattern != e.Route {
				r.names[pattern] = e.Route
			}
		}
	}
	mux, names := r.mux, r.names
	return func(path string) string {
		req, err := http.NewRequest(http.MethodGet, "http://localhost"+path, nil)
		if err != nil {
			return ""
		}
		_, pattern := mux.Handler(req)
		if name, ok := names[pattern]; ok {
			return name
		}
		return pattern
	}
}

// expressPattern is route as a ServeMux pattern: each Express segment
// ":name" as "{name}" and a last "*" as "{rest...}" (":name" and "*" stay
// where they cannot be translated, e.g. ":id?" or "a*b", so the mux
// matches them as themselves or refuses them); route itself when it has
// neither.
func expressPattern(route string) string {
	if !strings.ContainsAny(route, ":*") {
		return route
	}
	segs := strings.Split(route, "/")
	for i, seg := range segs {
		name, ok := strings.CutPrefix(seg, ":")
		switch {
		case ok && name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == "":
			segs[i] = "{" + name + "}"
		case seg == "*" && i == len(segs)-1:
			segs[i] = "{rest...}"
		}
	}
	return strings.Join(segs, "/")
}

// handle registers pattern on mux and reports whether the mux took it;
// a pattern the mux refuses (a route label that is a path, not a
// pattern, may be) is left out.
func handle(mux *http.ServeMux, pattern string) (ok bool) {
	defer func() { ok = recover() == nil }()
	mux.Handle(pattern, http.NotFoundHandler())
	return true
}
