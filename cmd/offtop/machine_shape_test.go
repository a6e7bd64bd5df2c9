//go:build shape

package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/offtop/offtop/internal/session"
	"github.com/offtop/offtop/internal/shape"
)

// TestShapeBusyRowNotPicked is the scripted run on the real machine: the
// binary holds 1 worker of server while two busy loops of our own run and
// 2 workers after they stop (--keys); the last JSON line marks the
// 1-worker row machine_busy and not the 2-worker row, and the exit
// summary picks 2 workers though 1 reads lower on a quiet machine.
func TestShapeBusyRowNotPicked(t *testing.T) {
	shape.Judge(t)
	bin := buildBinary(t)
	stop := shape.Spin(t, 2)
	var stdout, stderr strings.Builder
	cmd := exec.Command(bin, "--headless", "--scenario", "server", "--keys", "0s:1 5s:2", "--duration", "11s")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(4800*time.Millisecond, stop) // the loops end just before 2 workers
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	last := lastSizes(t, stdout.String())
	var one, two *session.SizeJSON
	for i, r := range last {
		switch r.Workers {
		case 1:
			one = &last[i]
		case 2:
			two = &last[i]
		}
	}
	if one == nil || two == nil || one.OthersCPUs == nil || two.OthersCPUs == nil {
		t.Fatalf("rows %+v: want a 1- and a 2-worker row with others_cpus", last)
	}
	t.Logf("1 worker: others %.2f CPUs, busy %v; 2 workers: others %.2f, busy %v", *one.OthersCPUs, one.MachineBusy, *two.OthersCPUs, two.MachineBusy)
	if !one.MachineBusy {
		t.Errorf("the 1-worker row, held beside two loops, is not machine_busy")
	}
	if two.MachineBusy {
		t.Skipf("not judged: the machine was busy after the loops stopped (others %.2f CPUs)", *two.OthersCPUs)
	}
	out := ansi.Strip(stderr.String())
	if !strings.Contains(out, "pick: 2 workers, lowest ping p99") {
		t.Errorf("the summary does not pick the clean 2-worker row:\n%s", out)
	}
	t.Logf("summary:\n%s", out)
}
