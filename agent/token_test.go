package agent

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/offtop/offtop/internal/peer"
)

// helperDirEnv makes the test binary a program with a controlled agent
// whose token file is in that directory (TestHelperProgram).
const helperDirEnv = "OFFTOP_TEST_AGENT_TOKEN_DIR"

// TestHelperProgram is not a test: run by TestKilledProgramsTokenFileGoes
// as a child, it starts an agent with control, prints its token file's
// path and waits to be killed.
func TestHelperProgram(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		t.Skip("a helper process only")
	}
	p := newPool(t, 1)
	a, err := New(Options{Pool: p, Control: true, TokenDir: dir, Logf: func(string, ...any) {}})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println(a.TokenFile())
	select {}
}

// startChild runs cmd and returns it as a peer.Process; it is killed at
// the end of the test.
func startChild(t *testing.T, cmd *exec.Cmd) peer.Process {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	st, err := peer.StartTicks(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return peer.Process{PID: cmd.Process.Pid, Start: st}
}

// TestKilledProgramsTokenFileGoes: a program killed with SIGKILL leaves
// its token file; the next agent started with that directory removes it,
// and the files of running agents stay, while a file naming a running
// pid with another start time (the pid reused) goes.
func TestKilledProgramsTokenFileGoes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("processes are named from /proc")
	}
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestHelperProgram$")
	child.Env = append(os.Environ(), helperDirEnv+"="+dir)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	killed := startChild(t, child)
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatalf("the helper program said nothing: %v", sc.Err())
	}
	stale := sc.Text()
	if want := filepath.Join(dir, TokenFileName(killed.PID, killed.Start)); stale != want {
		t.Fatalf("the helper's token file is %q, want %q", stale, want)
	}
	child.Process.Kill()
	child.Wait()
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("SIGKILL left no token file to remove: %v", err)
	}
	live := startChild(t, exec.Command("sleep", "60"))
	keep := map[string]bool{
		stale: false,
		filepath.Join(dir, TokenFileName(live.PID, live.Start)):   true,
		filepath.Join(dir, TokenFileName(live.PID, live.Start+1)): false, // its pid reused
		filepath.Join(dir, "offtop-agent-notes.txt"):              true,  // not a token file's name
	}
	for path := range keep {
		if path != stale {
			if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, _ := listen(t, Options{Pool: newPool(t, 1), Control: true, TokenDir: dir})
	for path, want := range keep {
		_, err := os.Stat(path)
		if got := err == nil; got != want {
			t.Errorf("%s: kept %v, want %v (%v)", filepath.Base(path), got, want, err)
		}
	}
	if _, err := os.Stat(a.TokenFile()); err != nil {
		t.Fatalf("the new agent's token file: %v", err)
	}
	// A second agent of this process shares the file; it goes with the last.
	b, _ := listen(t, Options{Pool: newPool(t, 1), Control: true, TokenDir: dir})
	if b.TokenFile() != a.TokenFile() || b.token != a.token {
		t.Fatalf("two agents of one process: %s and %s", a.TokenFile(), b.TokenFile())
	}
	a.Close()
	if _, err := os.Stat(b.TokenFile()); err != nil {
		t.Fatalf("the first Close removed the file the second uses: %v", err)
	}
	b.Close()
	if _, err := os.Stat(b.TokenFile()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("token file left after the last Close: %v", err)
	}
}
