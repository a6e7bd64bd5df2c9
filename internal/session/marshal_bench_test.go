package session

import (
	"encoding/json"
	"testing"
)

// BenchmarkMarshalSnapshot is one headless line's encoding (the agent
// and --headless pay it once a sample): AppendJSON into a kept buffer, as
// they write it, beside encoding/json over the same fields by their tags.
func BenchmarkMarshalSnapshot(b *testing.B) {
	s := goldenFull()
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		var line []byte
		for b.Loop() {
			line = s.AppendJSON(line[:0])
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		type plain Snapshot
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(plain(s)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
