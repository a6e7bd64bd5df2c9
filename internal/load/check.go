package load

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"syscall"
)

// ErrTarget wraps every error of Check: a target the service does not
// serve or a service that cannot be reached.
var ErrTarget = errors.New("load target")

// Check sends one GET to each target of spec at base (http://host:port)
// and says which the service does not serve: no answer within
// CheckTimeout (refused, reset, timed out), 404 or 405 (no such route for
// a GET), another 4xx (the request is refused as written: its path or
// query), or a 3xx (the load does not follow redirects: every request
// would read the redirect). A 2xx passes, and a 5xx: the service's own
// failure, which the load then measures and counts.
func Check(base string, spec Spec) error {
	c := &http.Client{Timeout: CheckTimeout, CheckRedirect: noRedirect}
	defer c.CloseIdleConnections()
	for _, t := range spec {
		resp, err := c.Get(base + t.Path)
		if err != nil {
			return fmt.Errorf("%w: %s%s: %s", ErrTarget, base, t.Path, why(err))
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		switch code := resp.StatusCode; {
		case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
			return fmt.Errorf("%w: %s%s answers %s (no such endpoint for a GET)", ErrTarget, base, t.Path, resp.Status)
		case code >= 400 && code < 500:
			return fmt.Errorf("%w: %s%s answers %s (the service refuses the request as written: check its path and query)", ErrTarget, base, t.Path, resp.Status)
		case code >= 300 && code < 400:
			return fmt.Errorf("%w: %s%s answers %s to %s (the load does not follow redirects: give the path it names)",
				ErrTarget, base, t.Path, resp.Status, strconv.Quote(resp.Header.Get("Location")))
		}
	}
	return nil
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// why is err in a few words: the cause under the URL and the syscall.
func why(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.As(err, &ne) && ne.Timeout():
		return "no answer within the timeout"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
