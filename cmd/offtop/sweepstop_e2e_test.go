package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSweepStopsInEveryPhase: SIGINT ends a sweep with exit 130 and the
// table so far within stopNotWaiting whenever it comes: during the machine
// check, while a run's session starts and takes its load (count at its
// top load, 256 jobs of scale 1000 a batch), in the warm-up, in the
// measurement. The 2s bound is judged in the shape tier
// (TestShapeStopsWithin2s).
func TestSweepStopsInEveryPhase(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10s of real runs")
	}
	bin := buildBinary(t)
	for _, after := range sweepStopPoints {
		t.Run(after.String(), func(t *testing.T) { stopSweepOnInt(t, bin, after, stopNotWaiting) })
	}
}

// sweepStopPoints are when stopSweepOnInt's SIGINT comes, from the start:
// in the first machine check (300ms), then in the first run's setup and
// warm-up (a fifth of --duration), then in its measurement.
var sweepStopPoints = []time.Duration{100 * time.Millisecond, 500 * time.Millisecond, 900 * time.Millisecond, 3 * time.Second}

// stopSweepOnInt sends SIGINT to a sweep after after and checks it exits
// 130 within within of the signal, with the table's first line on stdout.
func stopSweepOnInt(t *testing.T, bin string, after, within time.Duration) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "sweep", "--scenario", "count", "--load", "100", "--scale", "1000",
		"--workers", "1,2", "--repeat", "1", "--duration", "5s")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(after) // where in the sweep the signal comes, not a timing assertion
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(within + 10*time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("sweep still running %v after SIGINT; stderr:\n%s", time.Since(sent), stderr.String())
	}
	took := time.Since(sent)
	t.Logf("SIGINT at %v: exit after %v", after, took)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130; stderr:\n%s", err, stderr.String())
	}
	if took > within {
		t.Errorf("exit %v after SIGINT, want at most %v", took, within)
	}
	if !strings.Contains(firstLine(stdout.String()), "GOMAXPROCS") {
		t.Errorf("stdout has no table: %q", stdout.String())
	}
}
