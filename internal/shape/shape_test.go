package shape

import (
	"strings"
	"testing"
	"time"
)

// TestBusySaysWhatItMeasured: Busy is "" (quiet, or nothing to measure)
// or a reason that names the run delay it read and the limit.
func TestBusySaysWhatItMeasured(t *testing.T) {
	why := Busy(50 * time.Millisecond)
	if why != "" && !(strings.Contains(why, "run delay") && strings.Contains(why, "above 10%")) {
		t.Fatalf("reason does not say what was measured: %q", why)
	}
}
