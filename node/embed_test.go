package node

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: the preload and every module it requires are written, only
// the user can read them.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	preload, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"preload.js", "index.js", "package.json", "lib/agent.js", "lib/hist.js", "lib/metrics.js", "lib/pool.js", "lib/pool-worker.js", "lib/probe.js", "lib/threads.js"} {
		st, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", f, st.Mode().Perm())
		}
	}
	if preload != filepath.Join(dir, "preload.js") {
		t.Errorf("preload %s", preload)
	}
}
