package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/internal/cliflag"
	"github.com/offtop/offtop/internal/jobctl"
	nodeagent "github.com/offtop/offtop/node"
)

// nodeUsage is offtop node --help, generated from its flags.
var nodeUsage = func() string {
	fs, _, _ := nodeFlags()
	return "usage: offtop node [flags] -- app.js [ARGS...]   a Node.js program with offtop's agent, and its dashboard\n" +
		"  Runs node --require <offtop's agent> app.js ARGS (node from PATH, 20 or later)\n" +
		"  and attaches to it; q ends both. The program's output goes to a log file\n" +
		"  named at the end; the program's exit status is reported.\n" +
		"flags:\n" + fs.Usage("listen") + "\n" +
		"  --headless, --keys SCRIPT, --duration D, --interval D, --no-summary   as offtop attach\n" +
		nodeKeysUsage
}()

// nodeKeysUsage is node --help's list of the keys.
const nodeKeysUsage = "keys: + - up down 0-9 (the agent's pool size) r (reset) d ? q ctrl+c"

// nodeFlags defines node's flags: --listen, and attach's front end flags
// as text, passed on to attach as given.
func nodeFlags() (fs *cliflag.Set, listen *string, headless *bool) {
	fs = cliflag.New("offtop node")
	listen = fs.String("listen", "127.0.0.1:0", "`ADDR` where the program's agent serves (0: a free port; loopback only), so offtop attach ADDR works from elsewhere too")
	headless = fs.Bool("headless", false, "")
	fs.Bool("no-summary", false, "")
	for _, f := range []string{"keys", "duration", "interval"} {
		fs.String(f, "", "")
	}
	return fs, listen, headless
}

const nodeShortUsage = "usage: offtop node [--listen ADDR] [--headless] [--keys SCRIPT] [--duration D] -- app.js [ARGS...]  (offtop node --help)"

// nodeStartTimeout bounds how long the program's agent may take to say
// where it serves.
const nodeStartTimeout = 15 * time.Second

// nodeEndGrace is how long the program has after SIGTERM (q) before it
// is killed.
const nodeEndGrace = 1500 * time.Millisecond

// runNode is `offtop node`: the program under node with the agent
// preloaded, then `offtop attach` on it. Its exit code is the program's
// when the program ended by itself, else attach's.
func runNode(args []string, stdout, stderr io.Writer, cr *crasher) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "offtop node: %s\n", oneLine(fmt.Sprintf(format, a...)))
		return exitUsage
	}
	fs, listen, headless := nodeFlags()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return printed(fmt.Fprintln(stdout, nodeUsage))(stderr)
		}
		fmt.Fprintf(stderr, "offtop node: %s\n%s\n", oneLine(fs.Error(err).Error()), nodeShortUsage)
		return exitUsage
	}
	prog := fs.Args()
	if len(prog) == 0 {
		fmt.Fprintf(stderr, "offtop node: no program (offtop node -- app.js ARGS...)\n%s\n", nodeShortUsage)
		return exitUsage
	}
	if err := agent.CheckLoopback(*listen); err != nil {
		if errors.Is(err, agent.ErrNotLoopback) {
			return fail("--listen: %s is not loopback (the program's agent serves loopback only)", quote(*listen))
		}
		return fail("--listen: %s: want host:port, e.g. 127.0.0.1:7070", quote(*listen))
	}
	var attachArgs []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "listen" {
			attachArgs = append(attachArgs, "--"+f.Name+"="+f.Value.String())
		}
	})
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return fail("no node on PATH (offtop node runs Node.js 20 or later)")
	}
	script := prog[0]
	if !strings.HasPrefix(script, "-") {
		if _, err := os.Stat(script); err != nil {
			return fail("%s: no such file", quote(script))
		}
	}
	if !*headless && !jobctl.IsTerminal(stdout) {
		return fail("stdout is not a terminal; use --headless for JSON Lines")
	}
	dir, err := os.MkdirTemp("", "offtop-node-*") // 0700
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(dir)
	preload, err := nodeagent.Write(dir)
	if err != nil {
		return fail("%v", err)
	}
	logf, err := os.CreateTemp("", "offtop-node-*.log")
	if err != nil {
		return fail("%v", err)
	}
	defer logf.Close()
	addrFile := filepath.Join(dir, "addr")
	name := filepath.Base(script)
	cmd := exec.Command(nodeBin, append([]string{"--require", preload}, prog...)...)
	cmd.Env = append(os.Environ(), "OFFTOP_LISTEN="+*listen, "OFFTOP_CONTROL=1", "OFFTOP_ADDR_FILE="+addrFile, "OFFTOP_NAME="+name)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the terminal's ctrl+c is offtop's; q ends the program
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, jobctl.StopSignals...) // from here on a stop signal never kills offtop before the program
	defer signal.Stop(sig)
	if err := cmd.Start(); err != nil {
		return fail("%s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	status := func() string { return describeExit(cmd.ProcessState) }
	addr, why := waitAddr(addrFile, exited, sig)
	switch {
	case why == "exited":
		fmt.Fprintf(stderr, "offtop node: %s exited at once, %s%s\n", name, status(), programSaid(logf.Name()))
		os.Remove(logf.Name())
		return programCode(cmd.ProcessState)
	case why != "":
		endProgram(cmd, exited)
		fmt.Fprintf(stderr, "offtop node: %s: %s; ended it, %s (its output: %s)\n", name, why, status(), logf.Name())
		return exitUsage
	}
	done := make(chan struct{})
	byItself := make(chan bool, 1)
	go func() {
		select {
		case <-exited: // the program ended: so does the dashboard
			byItself <- true
			_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		case <-done:
			byItself <- false
		}
	}()
	code := runAttach(append([]string{addr}, attachArgs...), stdout, stderr, cr)
	close(done)
	if <-byItself {
		fmt.Fprintf(stderr, "offtop node: %s exited, %s (its output: %s)\n", name, status(), logf.Name())
		return programCode(cmd.ProcessState)
	}
	endProgram(cmd, exited)
	fmt.Fprintf(stderr, "offtop node: ended %s, %s (its output: %s)\n", name, status(), logf.Name())
	return code
}

// waitAddr waits for the agent to write where it serves into file: the
// address, or why not ("exited" when the program ended first).
func waitAddr(file string, exited <-chan struct{}, sig <-chan os.Signal) (addr, why string) {
	deadline := time.After(nodeStartTimeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(file); err == nil {
			return strings.TrimSpace(string(b)), ""
		}
		select {
		case <-exited:
			return "", "exited"
		case s := <-sig:
			return "", fmt.Sprintf("stopped by %v before its agent served", s)
		case <-deadline:
			return "", fmt.Sprintf("its agent did not serve within %v", nodeStartTimeout)
		case <-tick.C:
		}
	}
}

// endProgram sends the program's process group SIGTERM, then SIGKILL
// after nodeEndGrace, and waits for it.
func endProgram(cmd *exec.Cmd, exited <-chan struct{}) {
	select {
	case <-exited:
		return
	default:
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(nodeEndGrace):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
}

// describeExit is the program's status in words: "status 3", "killed by
// SIGTERM".
func describeExit(st *os.ProcessState) string {
	if st == nil {
		return "status unknown"
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by " + signalName(ws.Signal())
	}
	return fmt.Sprintf("status %d", st.ExitCode())
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// programCode is the exit code offtop passes on for the program: its
// status, or 128 + the signal that killed it.
func programCode(st *os.ProcessState) int {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// programSaid is ": " and the last line of the program's output that says
// something (node's "Error: Cannot find module ..."), "" when none.
func programSaid(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var best string
	for _, l := range bytes.Split(b, []byte("\n")) {
		s := strings.TrimSpace(string(l))
		if s == "" || strings.HasPrefix(s, "at ") || strings.HasPrefix(s, "Node.js v") || s == "^" ||
			strings.HasPrefix(s, "offtop agent: serving") || strings.HasPrefix(s, "offtop agent: control token") {
			continue
		}
		if strings.HasPrefix(s, "Error") || strings.Contains(s, "Error:") || best == "" {
			best = s
		}
	}
	if best == "" {
		return ""
	}
	return ": " + oneLine(cutRunes(best, 200))
}

func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
