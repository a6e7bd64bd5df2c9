package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/offtop/offtop/agent"
	"github.com/offtop/offtop/internal/cliflag"
	"github.com/offtop/offtop/internal/jobctl"
	"github.com/offtop/offtop/internal/nodeproc"
)

// nodeUsage is offtop node --help, generated from its flags.
var nodeUsage = func() string {
	fs, _, _ := nodeFlags()
	return "usage: offtop node [flags] -- app.js [ARGS...]   a Node.js program with offtop's agent, and its dashboard\n" +
		"  Runs node --require <offtop's agent> app.js ARGS (node from PATH, 18.14 or later)\n" +
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
		return fail("no node on PATH (offtop node runs Node.js 18.14 or later)")
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
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, jobctl.StopSignals...) // from here on a stop signal never kills offtop before the program
	defer signal.Stop(sig)
	p, err := nodeproc.Start(nodeBin, prog, *listen)
	if err != nil {
		return fail("%v", err)
	}
	defer p.Close()
	addr, why := p.WaitAddr(sig)
	switch {
	case why == "exited":
		fmt.Fprintf(stderr, "offtop node: %s exited at once, %s%s\n", p.Name, p.Status(), p.Said())
		os.Remove(p.Log)
		return p.Code()
	case why != "":
		p.End()
		fmt.Fprintf(stderr, "offtop node: %s: %s; ended it, %s (its output: %s)\n", p.Name, why, p.Status(), p.Log)
		return exitUsage
	}
	done := make(chan struct{})
	byItself := make(chan bool, 1)
	go func() {
		select {
		case <-p.Exited(): // the program ended: so does the dashboard
			byItself <- true
			_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		case <-done:
			byItself <- false
		}
	}()
	code := runAttach(append([]string{addr}, attachArgs...), stdout, stderr, cr)
	close(done)
	if <-byItself {
		fmt.Fprintf(stderr, "offtop node: %s exited, %s (its output: %s)\n", p.Name, p.Status(), p.Log)
		return p.Code()
	}
	p.End()
	fmt.Fprintf(stderr, "offtop node: ended %s, %s (its output: %s)\n", p.Name, p.Status(), p.Log)
	return code
}
