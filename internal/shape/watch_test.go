package shape

import (
	"runtime"
	"testing"
	"time"
)

// TestWatchSkipsWhenOthersCameMeanwhile: a busy loop on every CPU that
// starts after Watch makes its check skip the test, saying why.
func TestWatchSkipsWhenOthersCameMeanwhile(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc/stat")
	}
	t.Setenv(ForceEnv, "")
	var skipped bool
	t.Run("inner", func(t *testing.T) {
		check := Watch(t)
		stop := Spin(t, runtime.NumCPU())
		time.Sleep(500 * time.Millisecond) // the neighbours' work: what the check must see
		stop()
		defer func() { skipped = t.Skipped() }()
		check()
	})
	if !skipped {
		t.Error("busy loops on every CPU during the test: the check did not skip it")
	}
}
