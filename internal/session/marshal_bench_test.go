package session

import (
	"encoding/json"
	"testing"
)

// BenchmarkMarshalSnapshot is one headless line's encoding (the agent
// and --headless pay it once a sample).
func BenchmarkMarshalSnapshot(b *testing.B) {
	s := goldenFull()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(s); err != nil {
			b.Fatal(err)
		}
	}
}
