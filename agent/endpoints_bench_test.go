package agent

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// discard is a ResponseWriter that keeps nothing, reused across requests,
// so the bare handler costs little and the middleware's share shows.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkMiddleware is the middleware's cost per request: one mux route
// served bare and through the middleware, to an httptest.ResponseRecorder
// made per request (recorder/) and to a reused writer that keeps nothing
// (discard/). The cost is the difference of each pair; allocs/op counts
// the recorder's own too.
func BenchmarkMiddleware(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ping", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("pong\n")) })
	req := httptest.NewRequest(http.MethodGet, "/ping", nil)
	wrapped := newEndpoints(5*time.Second, nil).wrap(mux)
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"bare", mux}, {"middleware", wrapped}} {
		b.Run("recorder/"+h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h.h.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
		b.Run("discard/"+h.name, func(b *testing.B) {
			w := &discard{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				h.h.ServeHTTP(w, req)
			}
		})
	}
}
