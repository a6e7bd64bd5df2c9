// Package nodeproc runs a Node.js program with offtop's agent preloaded
// (node --require), for offtop node: in its own process group, its
// output to a log file, until its agent says where it serves; then it
// ends it and says how it ended.
package nodeproc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/offtop/offtop/internal/cliflag"
	nodeagent "github.com/offtop/offtop/node"
)

// StartTimeout bounds how long the program's agent may take to say
// where it serves.
const StartTimeout = 15 * time.Second

// EndGrace is how long the program has after SIGTERM before it is
// killed.
const EndGrace = 1500 * time.Millisecond

// Program is a started Node.js program.
type Program struct {
	Name string // the script's base name
	Log  string // the file of its output

	cmd      *exec.Cmd
	dir      string // the preload and the address file
	logf     *os.File
	addrFile string
	exited   chan struct{}
}

// Start runs node (the binary nodeBin) on prog, the script and its
// arguments, with offtop's agent preloaded, serving on listen with
// control on. Close removes what Start made but the log.
func Start(nodeBin string, prog []string, listen string) (*Program, error) {
	dir, err := os.MkdirTemp("", "offtop-node-*") // 0700
	if err != nil {
		return nil, err
	}
	p := &Program{Name: filepath.Base(prog[0]), dir: dir, addrFile: filepath.Join(dir, "addr"), exited: make(chan struct{})}
	preload, err := nodeagent.Write(dir)
	if err == nil {
		p.logf, err = os.CreateTemp("", "offtop-node-*.log")
	}
	if err != nil {
		p.Close()
		return nil, err
	}
	p.Log = p.logf.Name()
	p.cmd = exec.Command(nodeBin, append([]string{"--require", preload}, prog...)...)
	p.cmd.Env = append(os.Environ(), "OFFTOP_LISTEN="+listen, "OFFTOP_CONTROL=1", "OFFTOP_ADDR_FILE="+p.addrFile, "OFFTOP_NAME="+p.Name)
	p.cmd.Stdout, p.cmd.Stderr = p.logf, p.logf
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the terminal's ctrl+c is offtop's; q ends the program
	if err := p.cmd.Start(); err != nil {
		p.Close()
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Exited is closed once the program has exited.
func (p *Program) Exited() <-chan struct{} { return p.exited }

// Close removes the preload's directory and closes the log.
func (p *Program) Close() {
	os.RemoveAll(p.dir)
	if p.logf != nil {
		p.logf.Close()
	}
}

// WaitAddr waits for the program's agent to say where it serves: the
// address, or why not: "exited" when the program ended first, the
// signal that came on sig, or StartTimeout passed.
func (p *Program) WaitAddr(sig <-chan os.Signal) (addr, why string) {
	deadline := time.After(StartTimeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(p.addrFile); err == nil {
			return strings.TrimSpace(string(b)), ""
		}
		select {
		case <-p.exited:
			return "", "exited"
		case s := <-sig:
			return "", fmt.Sprintf("stopped by %v before its agent served", s)
		case <-deadline:
			return "", fmt.Sprintf("its agent did not serve within %v", StartTimeout)
		case <-tick.C:
		}
	}
}

// End sends the program's process group SIGTERM, then SIGKILL after
// EndGrace, and waits for it to exit.
func (p *Program) End() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(EndGrace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
}

// Status is how the program ended, in words: "status 3", "killed by
// SIGTERM"; "status unknown" before it has.
func (p *Program) Status() string { return describeExit(p.cmd.ProcessState) }

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

// Code is the exit code to pass on for the program once it has exited:
// its status, or 128 + the signal that killed it.
func (p *Program) Code() int {
	st := p.cmd.ProcessState
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// Said is ": " and the last line of the program's output that says
// something (node's "Error: Cannot find module ..."), one line, "" when
// none.
func (p *Program) Said() string {
	b, err := os.ReadFile(p.Log)
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
	return ": " + cliflag.OneLine(cutRunes(best, 200))
}

func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
