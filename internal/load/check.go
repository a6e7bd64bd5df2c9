package load

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
)

// ErrTarget wraps every error of Check: a target the service does not
// serve or a service that cannot be reached.
var ErrTarget = errors.New("load target")

// Check sends one GET to each target of spec at base (http://host:port)
// and says which the service does not serve: no answer within
// CheckTimeout (refused, reset, timed out), or 404 or 405 (no such route
// for a GET). Any other answer passes, an error status too.
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
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
			return fmt.Errorf("%w: %s%s answers %s (no such endpoint for a GET)", ErrTarget, base, t.Path, resp.Status)
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
