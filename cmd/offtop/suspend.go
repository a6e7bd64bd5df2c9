package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/sys/unix"

	"github.com/offtop/offtop/internal/crash"
)

// suspender suspends the dashboard as htop and less do: on ctrl+z typed
// in it (raw mode: the terminal sends no signal, Bubble Tea gives the key)
// or SIGTSTP sent to the process (kill -TSTP), it restores the terminal
// (leaves the alternate screen, puts echo and line mode back), then stops
// the process as the terminal's own ctrl+z would (a shell with job
// control says "Stopped" and resumes it with fg). On SIGCONT it
// re-enters the alternate screen and redraws it whole, but only once the
// process is the terminal's foreground again: continued in the background
// (kill -CONT while the shell holds the terminal, or bg) it stops again
// rather than draw over the shell, and resumes at fg.
//
// The process is stopped meanwhile, offtop's engine with it: no sample is
// taken, and the Loop probe's next sample runs late by the time stopped,
// so the probe's max (live and in the summary) includes it, as it would
// any stop of the world (SIGSTOP, a VM paused), and the samples not taken
// are counted as missed. The summary says so with how long it was
// suspended (note).
type suspender struct {
	p    *tea.Program
	tty  int // fd of the terminal, for its foreground process group; -1 unknown
	want chan struct{}
	tstp chan os.Signal
	done chan struct{}

	mu      sync.Mutex
	n       int           // suspensions
	stopped time.Duration // wall time suspended, in all
}

// newSuspender starts listening for SIGTSTP and suspend requests (ask);
// stop ends it.
func newSuspender(p *tea.Program, tty *os.File) *suspender {
	s := &suspender{p: p, tty: -1, want: make(chan struct{}, 1), tstp: make(chan os.Signal, 1), done: make(chan struct{})}
	if tty != nil {
		s.tty = int(tty.Fd())
	}
	signal.Notify(s.tstp, syscall.SIGTSTP)
	crash.Go(s.loop)
	return s
}

// ask requests a suspension (ctrl+z); it never blocks.
func (s *suspender) ask() {
	select {
	case s.want <- struct{}{}:
	default:
	}
}

// stop ends the listening: SIGTSTP stops the process plainly again.
func (s *suspender) stop() {
	close(s.done)
	signal.Stop(s.tstp)
}

func (s *suspender) loop() {
	for {
		select {
		case <-s.done:
			return
		case <-s.tstp:
		case <-s.want:
		}
		s.suspend()
	}
}

// suspend restores the terminal, stops the process group and, once
// continued in the foreground, takes the terminal back.
func (s *suspender) suspend() {
	if err := s.p.ReleaseTerminal(); err != nil {
		return
	}
	from := time.Now()
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	for {
		// SIGSTOP, not SIGTSTP: once Notify has caught SIGTSTP the Go
		// runtime keeps its handler, and a SIGTSTP would be dropped. Only
		// this process: a parent without job control (sh -c in a tmux
		// pane) in the same group must not be stopped with it.
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		<-cont
		if s.foreground() {
			break
		}
	}
	signal.Stop(cont)
	s.mu.Lock()
	s.n++
	s.stopped += time.Since(from)
	s.mu.Unlock()
	_ = s.p.RestoreTerminal()
	s.p.Send(tea.ClearScreen()) // a whole redraw: the screen was the shell's meanwhile
}

// foreground reports whether this process's group is the terminal's
// foreground group (true when unknown).
func (s *suspender) foreground() bool {
	if s.tty < 0 {
		return true
	}
	pg, err := unix.IoctlGetInt(s.tty, unix.TIOCGPGRP)
	return err != nil || pg == syscall.Getpgrp()
}

// filter is the Program's message filter: ctrl+z asks for a suspension
// instead of reaching the dashboard.
func (s *suspender) filter(_ tea.Model, msg tea.Msg) tea.Msg {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "ctrl+z" {
		s.ask()
		return nil
	}
	return msg
}

// note tells, after the summary, how long the run was suspended; nothing
// when it was not.
func (s *suspender) note(w io.Writer) error {
	s.mu.Lock()
	n, d := s.n, s.stopped
	s.mu.Unlock()
	if n == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "suspended %dx, %.1fs in all: the probe read it as Loop lateness (in its max)\n", n, d.Seconds())
	return err
}
