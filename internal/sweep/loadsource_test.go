package sweep

import (
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
)

// chanSource is a Source whose samples the test sends.
type chanSource struct{ ch chan session.Snapshot }

func (c chanSource) Samples() <-chan session.Snapshot { return c.ch }
func (c chanSource) Snapshot() session.Snapshot       { return session.Snapshot{} }
func (c chanSource) Post(session.Action) <-chan error { r := make(chan error, 1); r <- nil; return r }
func (c chanSource) Close()                           {}

// TestLoadSourceUnreadKeepsTheNewest: a load source nobody reads keeps
// taking its source's samples (the oldest of its own dropped), so the
// source never backs up, and it ends when the source's samples end.
func TestLoadSourceUnreadKeepsTheNewest(t *testing.T) {
	src := chanSource{make(chan session.Snapshot, 4)}
	s := NewLoadSource(src, nil, "/ping")
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := range 40 { // ten times the buffers: blocks unless taken
			var snap session.Snapshot
			snap.SamplesMissed = int64(i)
			src.ch <- snap
		}
		close(src.ch)
	}()
	select {
	case <-sent:
	case <-time.After(10 * time.Second):
		t.Fatal("the source backed up: the load source stopped taking samples nobody read")
	}
	var last session.Snapshot
	for snap := range s.Samples() {
		last = snap
	}
	if last.SamplesMissed != 39 || last.Route != "/ping" {
		t.Errorf("last sample %d, route %q: want the newest (39) with its route", last.SamplesMissed, last.Route)
	}
}
