package session

import (
	"testing"
)

// TestPushNewestDropsTheOldest: with nobody reading, a full channel loses
// its oldest Snapshot, never the one pushed, and the sender never waits.
func TestPushNewestDropsTheOldest(t *testing.T) {
	ch := make(chan Snapshot, 3)
	for i := range 10 {
		var s Snapshot
		s.SamplesMissed = int64(i)
		PushNewest(ch, s)
	}
	var got []int64
	for range 3 {
		got = append(got, (<-ch).SamplesMissed)
	}
	if got[0] != 7 || got[1] != 8 || got[2] != 9 {
		t.Errorf("kept %v, want the newest three: 7 8 9", got)
	}
}
