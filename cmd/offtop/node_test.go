package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offtop/offtop/internal/session"
)

// needNode skips t, saying so, when node is not on PATH.
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on PATH: the Node agent is not tested (install Node.js 18.14 or later)")
	}
}

// TestNodeHeadless: `offtop node --headless` on the example server reads
// the Node agent through `offtop attach` unchanged: every line has the
// required fields and the schema, a 2s:2 step resizes the Node pool from
// 1 (no line says 2 before the step, every line after the first 2 says 2;
// the counts add up), and the end of --duration ends the program. (At pool 0 the load's fib(37) runs on the
// main thread, which then answers no one, the agent included.)
func TestNodeHeadless(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	needNode(t)
	cmd := exec.Command(buildBinary(t), "node", "--headless", "--duration", "8s", "--keys", "2s:2",
		"--", "../../node/examples/server.js", "--load", "1", "--workers", "1", "--listen", "127.0.0.1:0")
	var n, late int
	var resized bool
	seen := map[float64]bool{}
	stderr := headlessLines(t, cmd, func(line string, at time.Duration, m map[string]any) {
		n++
		if m["scenario"] != "server.js" {
			t.Fatalf("line %d: scenario %v", n, m["scenario"])
		}
		sum := m["completed"].(float64) + m["failed"].(float64) + m["timed_out"].(float64) + m["running"].(float64) + m["queue_depth"].(float64)
		if sum != m["submitted"].(float64) {
			t.Fatalf("line %d: counts do not add up: %s", n, line)
		}
		w := m["workers"].(float64)
		seen[w] = true
		switch {
		case w == 2 && at < 2*time.Second:
			t.Errorf("line %d at %v: workers 2 before the 2s step", n, at)
		case w == 2:
			resized = true
		case resized:
			t.Errorf("line %d at %v: workers %v after the pool read 2", n, at, w)
		}
		if resized {
			late++
		}
	})
	if n < 4 || late == 0 || !seen[1] {
		t.Errorf("%d lines, %d at 2 workers, sizes seen %v", n, late, seen)
	}
	if !strings.Contains(stderr, "offtop node: ended server.js, killed by SIGTERM") {
		t.Errorf("stderr does not report the program's end:\n%s", stderr)
	}
}

// headlessLines runs cmd (an offtop --headless), checks that every line
// it writes is JSON with the required fields and the schema, hands each to
// each (with when it came, since the start), and returns cmd's stderr
// once it exited 0.
func headlessLines(t *testing.T, cmd *exec.Cmd, each func(line string, at time.Duration, m map[string]any)) string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 4<<20)
	for n := 1; sc.Scan(); n++ {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", n, err, sc.Text())
		}
		for _, k := range append(session.RequiredJSONFields, "schema") {
			if _, ok := m[k]; !ok {
				t.Fatalf("line %d has no %q:\n%s", n, k, sc.Text())
			}
		}
		if m["schema"] != float64(session.SchemaVersion) {
			t.Fatalf("line %d: schema %v", n, m["schema"])
		}
		each(sc.Text(), time.Since(start), m)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args[1], err, stderr.String())
	}
	return stderr.String()
}

// TestNodeBadStarts: no node on PATH, a script that does not exist, a
// program that exits at once or throws: one line naming it, the
// program's status, within seconds.
func TestNodeBadStarts(t *testing.T) {
	t.Parallel() // beside the other e2e runs that assert no timing
	bin := buildBinary(t)
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("exit3.js", "process.exit(3)\n")
	write("boom.js", "throw new Error('boom')\n")
	cases := []struct {
		name     string
		path     string // PATH for offtop ("": as is)
		needNode bool
		args     []string
		code     int
		want     string
	}{
		{"no node", dir, false, []string{"exit3.js"}, 2, "offtop node: no node on PATH"},
		{"no script", "", true, []string{"nosuch.js"}, 2, "offtop node: \"nosuch.js\": no such file"},
		{"exits at once", "", true, []string{"exit3.js"}, 3, "offtop node: exit3.js exited at once, status 3"},
		{"throws", "", true, []string{"boom.js"}, 1, "offtop node: boom.js exited at once, status 1: Error: boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.needNode {
				needNode(t)
			}
			cmd := exec.Command(bin, append([]string{"node", "--headless", "--"}, c.args...)...)
			cmd.Dir = dir
			if c.path != "" {
				cmd.Env = append(os.Environ(), "PATH="+c.path)
			}
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v", took)
			}
			lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
			if code != c.code || len(lines) != 1 || !strings.Contains(lines[0], c.want) || stdout.Len() != 0 {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit %d and one line with %q", code, stderr.String(), stdout.String(), c.code, c.want)
			}
		})
	}
}
