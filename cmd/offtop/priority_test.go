package main

import (
	"strings"
	"testing"

	"github.com/offtop/offtop/pool"
)

// TestPriorityAndPausedFlags: --priority and --paused reach the session's
// config (offtop and offtop sweep), and --paused with --no-load is one
// usage error.
func TestPriorityAndPausedFlags(t *testing.T) {
	if !pool.PriorityAvailable() {
		if _, err := parse([]string{"--priority"}, nil); err == nil || !strings.Contains(err.Error(), "unavailable") {
			t.Errorf("--priority without thread priorities: %v", err)
		}
		return
	}
	o, err := parse([]string{"--scenario", "stall", "--priority", "--paused"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !o.session.Priority || !o.session.Paused {
		t.Errorf("config %+v: want Priority and Paused", o.session)
	}
	if _, err := parse([]string{"--scenario", "server", "--paused", "--no-load"}, nil); err == nil || !strings.Contains(err.Error(), "--paused with --no-load") {
		t.Errorf("--paused --no-load: %v", err)
	}
	c, _, err := parseSweep([]string{"--scenario", "count", "--workers", "1,2", "--priority"})
	if err != nil || !c.Priority {
		t.Errorf("sweep --priority: %+v, %v", c, err)
	}
	if _, _, err := parseSweep([]string{"--scenario", "count", "--workers", "1,2,3,4", "--priority", "--fit"}); err == nil {
		t.Error("sweep --priority --fit: no error")
	}
}
